// WriterRegion and WriterRegions: where the columnar rep's writers append.
//
//   regions:  [ region 0 ][ region 1 ] ... (options.shards, a cache line or
//              more each: no line shared between two regions)
//   region:   busy flag | active block | byte chunk (free space, bytes left)
//             | entry count | LinkQueue | versions met by the last links
//
// A writer claims a region (Claim: the first free one from its thread's
// shard on), holds it while it reserves an entry in the region's block,
// copies the entry's bytes into the region's chunk and queues or links
// entries, and releases it (WriterRegions::Lock). So writers on different
// regions write no shared cache line, and a region's fields need no atomics
// but the flag, the count and the queue.
//
// Thread safety: Claim and Lock from any thread. A region's block, chunk,
// queue pushes and versions_met are touched only by its holder. The count is
// written by the holder, or by a thread that holds no region (fetch_add),
// and read by anyone (relaxed: a statistic). The queue is read by anyone
// (link_queue.h).
// Invariant: a region is held by at most one thread: Claim's acquire
// exchange sets the flag from false, Lock's release store clears it, so the
// next holder sees the region as the last one left it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>

#include "columnar/columns.h"
#include "columnar/link_queue.h"
#include "concurrency/per_thread.h"
#include "concurrency/thread_slot.h"
#include "memrep/rep.h"

namespace memrep::columnar {

struct alignas(concurrency::kCacheLine) WriterRegion {
  std::atomic<bool> busy{false};
  Block* block = nullptr;  // the active block; only the holder touches it
  char* bytes = nullptr;   // the byte chunk's free space
  size_t left = 0;
  std::atomic<uint64_t> count{0};  // entries stored by threads of this slot
  LinkQueue queue;                 // stored entries not yet in the index
  uint16_t versions_met = 0;       // bit 15: the last link met a version; bit 14: the one before...
};

class WriterRegions {
 public:
  // `count` regions, whose chunks of `chunk_bytes` come from `allocator`.
  // REQUIRES: count > 0.
  WriterRegions(uint32_t count, Allocator* allocator, size_t chunk_bytes);

  // Holds a claimed region for its scope: releases it on destruction.
  class Lock {
   public:
    explicit Lock(WriterRegion& region) : region_(region) {}
    ~Lock() {
      // release: the next holder sees the region's block and chunk as left.
      region_.busy.store(false, std::memory_order_release);
    }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

   private:
    WriterRegion& region_;
  };

  // A free region, now held by the caller (who releases it with a Lock):
  // the first free one from the calling thread's shard on, yielding after
  // each round of busy ones.
  WriterRegion& Claim() {
    const uint32_t start = concurrency::ThreadShard(count_);
    for (uint32_t i = 0;; ++i) {
      WriterRegion& region = regions_[(start + i) % count_];
      // relaxed test first: a busy region costs a shared read, not a write.
      // acquire: pairs with the last holder's release in ~Lock.
      if (!region.busy.load(std::memory_order_relaxed) &&
          !region.busy.exchange(true, std::memory_order_acquire)) {
        return region;
      }
      if (i % count_ == count_ - 1) std::this_thread::yield();
    }
  }

  // Room for `n` bytes in the held region's chunk (a new chunk when it is
  // used up; a big entry gets an allocation of its own), or nullptr.
  char* TakeBytes(WriterRegion& region, size_t n) {
    if (n <= region.left) {
      char* p = region.bytes;
      region.bytes += n;
      region.left -= n;
      return p;
    }
    return TakeNewChunk(region, n);
  }

  // Counts a stored entry on the held region (only its holder writes the
  // count then), or on the thread slot's (where threads may share it).
  void CountEntry(WriterRegion* held) {
    if (held != nullptr) {
      held->count.store(held->count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    } else {
      regions_[concurrency::ThreadShard(count_)].count.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // Entries counted so far (relaxed: may lag an insert in progress).
  uint64_t NumEntries() const;

  uint32_t size() const { return count_; }
  WriterRegion& operator[](uint32_t i) { return regions_[i]; }
  const WriterRegion& operator[](uint32_t i) const { return regions_[i]; }
  uint32_t IndexOf(const WriterRegion& region) const {
    return static_cast<uint32_t>(&region - regions_.get());
  }

 private:
  // TakeBytes when the chunk has no room for `n` bytes.
  char* TakeNewChunk(WriterRegion& region, size_t n);

  Allocator* const allocator_;
  const uint32_t count_;
  const size_t chunk_bytes_;
  std::unique_ptr<WriterRegion[]> regions_;
};

}  // namespace memrep::columnar
