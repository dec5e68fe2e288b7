// WriterRegion and WriterRegions: where the columnar rep's writers queue
// their entries for the index.
//
//   regions:  [ region 0 ][ region 1 ] ... (options.shards, a cache line or
//              more each: no line shared between two regions), each made
//              the first time a writer claims its slot, so that a memtable
//              written by one thread holds one
//   region:   busy flag | versions met by the last links | overflow stash
//             | LinkQueue
//
// A writer claims a region (Claim: the first free one from its thread's
// shard on), holds it while it queues an entry and links the region's
// oldest queued one into the index, and releases it (WriterRegions::Lock).
// So writers on different regions write no shared cache line, and a
// region's fields need no atomics but the flag and the queue. (The node an
// entry lives in comes from the rep's RowRegion, whose cursors are per
// thread slot too; a region holds no memory of its own but its stash of
// overflow buckets.)
//
// Thread safety: Claim and Lock from any thread. A region's queue pushes and
// pops, versions_met and stash are touched only by its holder. The queue is
// read by anyone (link_queue.h).
// Invariants:
//  1. A region is held by at most one thread: Claim's acquire exchange sets
//     the flag from false, Lock's release store clears it, so the next
//     holder sees the region as the last one left it.
//  2. A slot's region is made once, published by a release CAS from null,
//     and never freed before the WriterRegions; slots are loaded with acquire.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <thread>

#include "columnar/column_index.h"
#include "columnar/link_queue.h"
#include "concurrency/per_thread.h"
#include "concurrency/thread_slot.h"

namespace memrep::columnar {

struct alignas(concurrency::kCacheLine) WriterRegion {
  std::atomic<bool> busy{false};
  uint16_t versions_met = 0;  // bit 15: the last link met a version; bit 14: the one before...
  uint32_t index = 0;         // its slot
  ColumnIndex::OverflowStash stash;
  LinkQueue queue;  // stored entries not yet in the index
};

class WriterRegions {
 public:
  // REQUIRES: count > 0.
  explicit WriterRegions(uint32_t count)
      : count_(count), slots_(new std::atomic<WriterRegion*>[count]()) {}
  ~WriterRegions() {
    for (uint32_t i = 0; i < count_; ++i) delete slots_[i].load(std::memory_order_relaxed);
  }
  WriterRegions(const WriterRegions&) = delete;
  WriterRegions& operator=(const WriterRegions&) = delete;

  // Holds a claimed region for its scope: releases it on destruction.
  class Lock {
   public:
    explicit Lock(WriterRegion& region) : region_(region) {}
    ~Lock() {
      // release: the next holder sees the region's queue and stash as left.
      region_.busy.store(false, std::memory_order_release);
    }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

   private:
    WriterRegion& region_;
  };

  // A free region, now held by the caller (who releases it with a Lock):
  // the first free one from the calling thread's shard on (made if its slot
  // has none yet), yielding after each round of busy ones.
  WriterRegion& Claim() {
    const uint32_t start = concurrency::ThreadShard(count_);
    for (uint32_t i = 0;; ++i) {
      WriterRegion* region = RegionAt((start + i) % count_);
      // relaxed test first: a busy region costs a shared read, not a write.
      // acquire: pairs with the last holder's release in ~Lock.
      if (region != nullptr && !region->busy.load(std::memory_order_relaxed) &&
          !region->busy.exchange(true, std::memory_order_acquire)) {
        return *region;
      }
      if (i % count_ == count_ - 1) std::this_thread::yield();
    }
  }

  uint32_t size() const { return count_; }
  // The regions' own bytes, of those made (MemoryUsage charges them).
  size_t bytes() const { return made_.load(std::memory_order_relaxed) * sizeof(WriterRegion); }
  // REQUIRES: slot i has a region (a writer claimed it).
  WriterRegion& operator[](uint32_t i) { return *slots_[i].load(std::memory_order_acquire); }
  const WriterRegion& operator[](uint32_t i) const {
    return *slots_[i].load(std::memory_order_acquire);
  }
  uint32_t IndexOf(const WriterRegion& region) const { return region.index; }

 private:
  // Slot i's region, made if it has none (invariant 2); nullptr if no memory
  // could be had for it (another slot's is claimed instead).
  WriterRegion* RegionAt(uint32_t i) {
    WriterRegion* region = slots_[i].load(std::memory_order_acquire);
    if (region != nullptr) return region;
    auto* made = new (std::nothrow) WriterRegion();
    if (made == nullptr) return nullptr;
    made->index = i;
    if (slots_[i].compare_exchange_strong(region, made, std::memory_order_acq_rel,
                                          std::memory_order_acquire)) {
      made_.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
      return made;
    }
    delete made;  // another thread made it first
    return region;
  }

  const uint32_t count_;
  std::unique_ptr<std::atomic<WriterRegion*>[]> slots_;
  std::atomic<uint32_t> made_{0};
};

}  // namespace memrep::columnar
