// Protocol: the trie's whole concurrency protocol in one class, the way a
// node version word holds a B-tree's: the node lock and its obsolete bit,
// the count of replaced nodes that iterators stamp their paths with, the
// epoch guards of readers and writers, freezing, and the retirement and
// reuse of replaced nodes' blocks. The Trie (trie.h) decides what to change;
// every rule about when another thread may see, change or reuse a node is
// here (docs/trie.md, Concurrency and Reclamation, numbers the rules).
//
//   writer:  WriteGuard g(p);  ... p.Lock(n) ... change n ... p.Unlock(n)
//            grow n: lock parent, lock n, link the copy, p.Replace(n)
//            (marks it obsolete and unlocks it), unlock parent,
//            p.Retire(n, kind)
//   reader:  ReadGuard g(p);  ... follow Refs ...
//   cursor:  PathStamp s;  s.Begin(p) before a descent;  s.Valid(p): no node
//            replaced since, so the path's nodes are still the trie's
//   memory:  TakeNodeBlock / TakeChunkBlock hand out retired nodes' blocks
//            once no guard can hold them, and rests released with Release
//
// Invariants and memory orders:
//  1. The lock word: bit 0 locked, bit 1 obsolete. Taken by a CAS with
//     acquire, given up with a release store (only the holder writes a
//     locked word): each holder sees the node as the previous holder left
//     it. An obsolete node is never unlocked for good: Replace stores
//     obsolete with release, and Lock on an obsolete word fails (the
//     writer restarts from the root).
//  2. Lock order: top-down (a parent, then its child); a writer holds at
//     most two locks, so writers never deadlock.
//  3. Replacements() counts replaced nodes. Retire increments it (relaxed)
//     before the epoch advance that stamps the node (seq_cst, sequenced
//     after it in the same thread): a guard that began after that advance
//     synchronizes with it and reads the new count; one that began before
//     keeps the node from reuse. So a cursor that reads the count it began
//     with knows none of its path's nodes was reused since.
//  4. A retired node's block is handed out only once its stamp is below
//     OldestAnnounced() (concurrency/epoch.h, invariant 2), and only to the
//     threads of the slot that retired it.
//  5. Once frozen nothing is retired: ReadGuards claim no slot.
//
// Thread safety: every member from any thread at once, except Freeze
// (REQUIRES: no insert runs or follows).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "concurrency/epoch.h"
#include "concurrency/mutex.h"
#include "concurrency/per_thread.h"
#include "trie/node.h"

namespace memrep::trie {

class Protocol {
 public:
  // `root`: the trie's root node (its locks are counted apart in the
  // contention audit's build).
  explicit Protocol(const NodeHeader* root) : root_(root) {}

  // ---- Node locks (invariants 1, 2) ----

  // Spins with `pause`, then yields between tries (a holder the scheduler
  // preempted keeps the lock for a time slice). false: the node is obsolete.
  bool Lock(NodeHeader* n) const;
  static void Unlock(NodeHeader* n);
  // REQUIRES: n locked, and its copy linked where n was. Marks n obsolete
  // (a writer that locks it next restarts) and gives up its lock.
  static void Replace(NodeHeader* n);

  // ---- Guards ----

  // Held while Refs to nodes are in use. Free once frozen.
  class ReadGuard {
   public:
    explicit ReadGuard(const Protocol& p)
        : guard_(p.frozen() ? concurrency::EpochDomain::Guard()
                            : concurrency::EpochDomain::Guard(p.epochs_)) {}

   private:
    concurrency::EpochDomain::Guard guard_;
  };
  // Held by an insert, restarts included. REQUIRES: not frozen.
  class WriteGuard {
   public:
    explicit WriteGuard(const Protocol& p) : guard_(p.epochs_) {}

   private:
    concurrency::EpochDomain::Guard guard_;
  };

  void Freeze() { frozen_.store(true, std::memory_order_release); }
  bool frozen() const { return frozen_.load(std::memory_order_acquire); }

  // ---- Replacement stamps (invariant 3) ----

  // Nodes replaced so far.
  uint64_t Replacements() const { return replacements_.load(std::memory_order_seq_cst); }

  // A cursor's path and the count it was taken at. Inside a ReadGuard.
  class PathStamp {
   public:
    // Before a descent from the root.
    void Begin(const Protocol& p) { stamp_ = p.Replacements(); }
    // After it: whether it left a path to continue from.
    void Keep(bool has_path) { ok_ = has_path; }
    // The path is still good: no node replaced since Begin or Recheck.
    // (Frozen or not: a node replaced before Freeze, after the path was
    // taken, may be reused by then.)
    bool Valid(const Protocol& p) const { return ok_ && p.Replacements() == stamp_; }
    // At the start of a step that continues the path: keeps it only if no
    // node was replaced since, and restamps it with the count that check
    // read. (Restamping with a later read would hide a node replaced between
    // the two reads: guarded during this step, it may be reused before the
    // next one, whose check would then pass.)
    void Recheck(const Protocol& p) {
      const uint64_t now = p.Replacements();
      ok_ = ok_ && now == stamp_;
      stamp_ = now;
    }

   private:
    bool ok_ = false;
    uint64_t stamp_ = 0;
  };

  // ---- Retirement and reuse (invariant 4) ----

  // REQUIRES: node is unlinked (Replace called). Counts it, then keeps it
  // with the calling thread's slot until no guard can hold it.
  void Retire(Ref node, Kind kind);
  // A block nobody was handed (the rest of a chunk): free at once. Dropped
  // if smaller than any node.
  void Release(Ref start, uint32_t units);
  // A block for a node of `kind` from the calling thread's free memory: a
  // retired node's of that kind or bigger, else one of its newest few
  // rests that holds it; what the node leaves of the block is released.
  // false: none. The caller clears the node's bytes.
  bool TakeNodeBlock(Kind kind, Ref* start);
  // A block of at least `units` for a chunk: one of the newest few rests,
  // else the smallest retired node's block that holds it. false: none. The
  // caller clears *got units.
  bool TakeChunkBlock(uint64_t units, Ref* start, uint64_t* got);

 private:
  struct Retired {
    Ref node;
    Kind kind;
    uint64_t stamp;
  };
  // Per thread slot, on its own line: threads whose slots collide share
  // one (correct; they only contend on its lock). Taken after the slot's
  // chunk refill lock (memory::ThreadChunks), never before it.
  struct Reclaim {
    concurrency::Mutex mu;
    std::vector<Retired> pending GUARDED_BY(mu);  // not yet stamped
    std::vector<Retired> limbo GUARDED_BY(mu);    // stamped, maybe still read
    std::vector<Ref> free[kKinds] GUARDED_BY(mu);
    // Rests of blocks (start, units), never handed out.
    std::vector<std::pair<Ref, uint32_t>> spare GUARDED_BY(mu);
    // Blocks in `free` and `spare`, so an empty slot skips the mutex
    // (relaxed: a hint; the lists are read under the lock).
    std::atomic<uint32_t> free_blocks{0};
    void AddFree(int64_t n) REQUIRES(mu) {
      // Under the lock: a load and a store, no RMW.
      free_blocks.store(static_cast<uint32_t>(free_blocks.load(std::memory_order_relaxed) + n),
                        std::memory_order_relaxed);
    }
  };
  // Stamps the pending nodes with one epoch advance and moves the limbo's
  // safe ones to the free lists.
  void StampPending(Reclaim* r) REQUIRES(r->mu);

  // Nodes stamped per epoch advance: an advance costs a shared seq_cst RMW
  // and a miss in every other thread's next announcement.
  static constexpr size_t kStampBatch = 8;
  // A limbo this long is checked against the oldest announced epoch.
  static constexpr size_t kLimboCheck = 32;
  // The newest few rests are looked at: a bounded look, not a search.
  static constexpr size_t kSpareLook = 4;
  static constexpr size_t kReclaimSlots = 16;

  // root_, frozen_ and replacements_ share the object's first line, which
  // every guard (frozen_) and every iterator step (replacements_) reads.
  // (Placed after the epoch's 64 slot lines, replacements_ fell 4 KiB
  // from slot 0: a load of it right after a guard's CAS on that slot
  // waited for the CAS's store, as addresses 4 KiB apart look alike to the
  // store buffer's first check: docs/results/2026-11-27-trie-protocol.md.)
  const NodeHeader* const root_;
  std::atomic<bool> frozen_{false};
  // One shared line, written once per replacement (docs/trie.md,
  // Contention audit), not per insert: per-thread counters would make every
  // iterator step sum kReclaimSlots lines instead. Relaxed RMW: invariant 3.
  std::atomic<uint64_t> replacements_{0};
  mutable concurrency::EpochDomain epochs_;
  concurrency::PerThread<Reclaim, kReclaimSlots> reclaim_;
};

}  // namespace memrep::trie
