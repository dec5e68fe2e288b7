// LinkQueue: a writer region's newest entries, stored but not yet linked
// into the index.
//
// Linking an entry into the index costs a cache miss on its bucket (the
// index covers every version, far more than the caches hold). A writer does
// not wait for it: it stores the entry (its node in the row region, pushed
// on the run index for iterators), prefetches the bucket and queues the entry; kDepth inserts
// later, when the bucket has arrived, it links the oldest queued entry. A point read looks in every
// queue that holds entries as well as in the index.
//
//   slots:  [ fp|ref ][ fp|ref ] ... kDepth ...     (ring, position % kDepth)
//            ^ tail (oldest unlinked)      ^ head (next push)
//
// Thread safety: one writer at a time (the holder of the region) pushes and
// pops; readers call ForEach concurrently, without a lock. Invariants:
//  1. Positions [tail, head) hold entries that are stored (complete) but maybe
//     not linked; head - tail <= kDepth. The writer stores a slot (release)
//     before the head (release) that covers it, and links an entry before
//     the tail (release) that passes it.
//  2. A slot is overwritten only by the push of position p + kDepth, which
//     needs tail > p: the entry it held was linked first.
//  So a reader that loads head with acquire and then reads the slots of the
//  kDepth positions below it (acquire) gets, for each entry pushed before
//  it loaded head, either that entry or a value written after the entry was
//  linked; in the second case its index lookup made after the scan finds
//  the entry (the acquire load of the slot orders the link before it). Every
//  entry whose insert returned before the read began is found in one of the
//  two places; some may be found in both (callers drop the repeat).
#pragma once

#include <atomic>
#include <cstdint>

#include "columnar/node.h"

namespace memrep::columnar {

class LinkQueue {
 public:
  static constexpr uint32_t kDepth = 8;
  static constexpr uint64_t kFingerprintMask = ~uint64_t{0} << 32;

  // ---- The writer (the region's holder) ----
  bool empty() const { return Head() == Tail(); }
  bool full() const { return Head() - Tail() == kDepth; }
  // REQUIRES: !full(); the node's row is complete.
  void Push(RowRef ref, uint64_t hash) {
    const uint64_t head = Head();
    hashes_[head % kDepth] = hash;
    // release (both): invariant 1.
    slots_[head % kDepth].store((hash & kFingerprintMask) | ref, std::memory_order_release);
    head_.store(head + 1, std::memory_order_release);
  }
  // REQUIRES: !empty().
  RowRef oldest_ref() const {
    return static_cast<RowRef>(slots_[Tail() % kDepth].load(std::memory_order_relaxed));
  }
  uint64_t oldest_hash() const { return hashes_[Tail() % kDepth]; }
  // Entries queued now, and the hash of the one pushed `age` pushes ago.
  uint32_t size() const { return static_cast<uint32_t>(Head() - Tail()); }
  uint64_t hash_at_age(uint32_t age) const { return hashes_[(Head() - 1 - age) % kDepth]; }
  // REQUIRES: the oldest entry is linked (or dropped, see ColumnarRep::LinkOldest).
  void Pop() { tail_.store(Tail() + 1, std::memory_order_release); }  // invariant 1

  // ---- Readers ----
  // Calls fn(fingerprint | ref) for every entry that may be unlinked.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    // acquire (both): see the entries and links the writer published.
    const uint64_t tail = tail_.load(std::memory_order_acquire);
    const uint64_t head = head_.load(std::memory_order_acquire);
    if (head == tail) return;  // all linked before tail was stored
    const uint64_t from = head - tail > kDepth ? head - kDepth : tail;
    for (uint64_t p = from; p < head; ++p) fn(slots_[p % kDepth].load(std::memory_order_acquire));
  }

 private:
  // The writer's own loads of what only it stores.
  uint64_t Head() const { return head_.load(std::memory_order_relaxed); }
  uint64_t Tail() const { return tail_.load(std::memory_order_relaxed); }

  std::atomic<uint64_t> head_{0};
  std::atomic<uint64_t> tail_{0};
  std::atomic<uint64_t> slots_[kDepth] = {};
  uint64_t hashes_[kDepth] = {};  // the writer's: full hashes, for linking
};

}  // namespace memrep::columnar
