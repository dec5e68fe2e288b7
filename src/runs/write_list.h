// WriteList: every node of a RunIndex, in insertion order, on one of kShards
// lock-free stacks. It is how the background strand and iterators find the
// rows that are not yet in a sorted run.
//
//   shard i: head -> newest -> ... -> oldest -> 0   (RowRefs)
//   node:    [ link (4 bytes) | rest of the rep's header | row ]
//
// Every node of a region a RunIndex serves begins with the 4-byte link this
// list threads through it (its "write-list link"); a rep's own header fields
// follow it.
//
// Thread safety: Push from any thread (an exclusive Push only while no other
// push runs); each thread pushes to the shard of its ThreadSlot, so
// concurrent writers touch different cache lines. LoadHeads and
// Count from any thread.
// Invariants:
//  1. A shard only grows at its head: every node ever at the head stays
//     reachable from every later head. So the nodes pushed after a head `h`
//     was observed are exactly those between the current head and `h`.
//  2. A node's link is written before the release CAS (or, for an exclusive
//     push, the release store) that makes it or a chain above it the head,
//     and never again; an acquire load of the head makes the whole chain
//     below it (links and rows) visible. An exclusive push may store because
//     no other push can move the head between its load and its store.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "concurrency/per_thread.h"
#include "concurrency/shared_writes.h"
#include "memory/row_region.h"

namespace memrep::runs {

using memory::RowRef;
using memory::RowRegion;

class WriteList {
 public:
  static constexpr size_t kShards = 16;
  using Heads = std::array<RowRef, kShards>;
  static constexpr size_t kLinkBytes = sizeof(RowRef);

  // What Push says a shard has reached (flags): kCut each time the shard has
  // taken due_every more nodes; kTail at the mark ArmTail set, once.
  static constexpr unsigned kCut = 1, kTail = 2;

  // `due_every`: Push says kCut when a shard has taken this many more nodes.
  explicit WriteList(uint64_t due_every) : due_every_(due_every) {
    shards_.ForEach([&](Shard& shard) {
      shard.due.store(due_every, std::memory_order_relaxed);
      shard.cut_due.store(due_every, std::memory_order_relaxed);
    });
  }

  // Pushes n nodes of `region` on the calling thread's shard with one
  // publication: `newest` and the nodes its links reach down to `oldest`,
  // which the caller linked newest first (each node's link names the one
  // before it; oldest's link is set here). One node: newest == oldest, n = 1.
  // exclusive: no other thread pushes meanwhile, so plain stores replace the
  // CAS and the count's read-modify-write. Returns the marks the shard
  // reached (kCut, kTail), 0 mostly: one comparison with the nearer mark
  // (about: threads sharing a shard may race on the marks, which only moves
  // a request a little).
  unsigned Push(const RowRegion& region, RowRef newest, RowRef oldest, uint64_t n, bool exclusive) {
    Shard& shard = shards_.Mine();
    char* link = region.At(oldest);
    RowRef head = shard.head.load(std::memory_order_relaxed);
    uint64_t count;
    if (exclusive) {
      std::memcpy(link, &head, kLinkBytes);
      // release: publishes the links and the rows (invariant 2).
      shard.head.store(newest, std::memory_order_release);
      // relaxed: a count for statistics and scheduling, not for visibility.
      count = shard.count.load(std::memory_order_relaxed) + n;
      shard.count.store(count, std::memory_order_relaxed);
    } else {
      do {
        std::memcpy(link, &head, kLinkBytes);
        // release: publishes the links and the rows (invariant 2).
      } while (!shard.head.compare_exchange_weak(head, newest, std::memory_order_release,
                                                 std::memory_order_relaxed));
      count = shard.count.fetch_add(n, std::memory_order_relaxed) + n;
    }
    // relaxed: a scheduling hint.
    if (count < shard.due.load(std::memory_order_relaxed)) return 0;
    return Reached(shard, count);
  }

  // Sets the calling thread's shard's kTail mark `every` nodes on (replacing
  // any earlier one): Push says kTail when the shard has taken that many
  // more, once. A reader-driven cadence finer than kCut's.
  void ArmTail(uint64_t every) {
    Shard& shard = shards_.Mine();
    // relaxed: scheduling hints, as in Push.
    shard.tail_due.store(shard.count.load(std::memory_order_relaxed) + every,
                         std::memory_order_relaxed);
    SetDue(shard);
  }

  Heads LoadHeads() const {
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kHeadsRead);
    Heads heads;
    for (size_t i = 0; i < kShards; ++i) {
      heads[i] = shards_[i].head.load(std::memory_order_acquire);  // invariant 2
    }
    return heads;
  }

  // Nodes pushed so far per shard (relaxed: may lag a push in progress).
  std::array<uint64_t, kShards> ShardCounts() const {
    std::array<uint64_t, kShards> counts;
    for (size_t i = 0; i < kShards; ++i)
      counts[i] = shards_[i].count.load(std::memory_order_relaxed);
    return counts;
  }

  // Nodes pushed so far (may lag a push in progress by one per shard).
  uint64_t Count() const {
    uint64_t total = 0;
    shards_.ForEach(
        [&](const Shard& shard) { total += shard.count.load(std::memory_order_relaxed); });
    return total;
  }

  // As ForEachBetween, but stops (and returns false) once more than `limit`
  // nodes were found: for a caller that wants a few nodes or none.
  template <typename Fn>
  static bool ForAtMostBetween(const RowRegion& region, const Heads& newer, const Heads& older,
                               size_t limit, Fn&& fn) {
    Prefetch(region, newer, older);
    size_t n = 0;
    for (size_t i = 0; i < kShards; ++i) {
      for (RowRef r = newer[i]; r != older[i];) {
        if (++n > limit) return false;
        fn(r);
        std::memcpy(&r, region.At(r), kLinkBytes);
      }
    }
    return true;
  }

  // Calls fn(ref) for each node pushed after `older` and up to `newer`, per
  // shard, newest first. REQUIRES: older[i] was a head of shard i no later
  // than newer[i].
  template <typename Fn>
  static void ForEachBetween(const RowRegion& region, const Heads& newer, const Heads& older,
                             Fn&& fn) {
    Prefetch(region, newer, older);
    for (size_t i = 0; i < kShards; ++i) {
      for (RowRef r = newer[i]; r != older[i];) {
        fn(r);
        std::memcpy(&r, region.At(r), kLinkBytes);
      }
    }
  }

 private:
  struct Shard {
    std::atomic<RowRef> head{0};
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> due{0};  // the nearer of the two marks below
    std::atomic<uint64_t> cut_due{0};
    std::atomic<uint64_t> tail_due{kNever};  // kNever: not armed
  };
  static constexpr uint64_t kNever = ~uint64_t{0};
  // Asks for the nodes that a walk from `newer` down to `older` will read,
  // before it reads them. A walk follows links one node at a time, each a
  // miss when the line is still in the writer's core: a chain of dependent
  // misses. But a thread carves its nodes one after the other from its own
  // chunk (RowRegion), so the nodes pushed on a shard since `older` mostly
  // lie between its address and `newer`'s: prefetches of those lines are
  // independent and their misses overlap. Only a hint, never a read: nodes
  // in another chunk, or of a thread sharing the shard, are found by the
  // walk as before, and a prefetch never faults. Spans over kPrefetchSpan
  // bytes (a cut's thousands of rows) are left to the hardware.
  static constexpr size_t kPrefetchSpan = 4096;
  static void Prefetch(const RowRegion& region, const Heads& newer, const Heads& older) {
    for (size_t i = 0; i < kShards; ++i) {
      if (newer[i] == older[i] || older[i] == 0) continue;
      const char* lo = region.At(older[i]);
      const char* hi = region.At(newer[i]);
      if (hi <= lo || static_cast<size_t>(hi - lo) > kPrefetchSpan) continue;
      // From older's line (the next node may start in it) through hi's first
      // line and the next (its link and key may cross one).
      for (const char* p = lo; p <= hi + concurrency::kCacheLine; p += concurrency::kCacheLine) {
        __builtin_prefetch(p);
      }
    }
  }
  static void SetDue(Shard& shard) {
    // relaxed: scheduling hints.
    shard.due.store(std::min(shard.cut_due.load(std::memory_order_relaxed),
                             shard.tail_due.load(std::memory_order_relaxed)),
                    std::memory_order_relaxed);
  }
  // The marks `count` reached, each moved on (kCut) or disarmed (kTail).
  unsigned Reached(Shard& shard, uint64_t count) {
    unsigned marks = 0;
    // relaxed: scheduling hints.
    if (count >= shard.cut_due.load(std::memory_order_relaxed)) {
      shard.cut_due.store(count + due_every_, std::memory_order_relaxed);
      marks |= kCut;
    }
    if (count >= shard.tail_due.load(std::memory_order_relaxed)) {
      shard.tail_due.store(kNever, std::memory_order_relaxed);
      marks |= kTail;
    }
    SetDue(shard);
    return marks;
  }
  const uint64_t due_every_;
  concurrency::PerThread<Shard, kShards> shards_;
};

}  // namespace memrep::runs
