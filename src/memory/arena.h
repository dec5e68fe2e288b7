// Arena: memrep's own bump allocator, for the standalone face's rows and,
// behind memrep_bench's RocksDB-ABI adapter (bench/memrep_bench/shim_arena.h),
// for every rep the bench runs.
//
// Layout: blocks of block_size() bytes from operator new[] (aligned to
// kAlignment), carved by a bump cursor. A request larger than a quarter
// block gets a block of its own, so a big allocation never wastes the rest
// of a current block.
//
//   shard 0 (thread slot % kShards):  [block ......cursor|        free       ]
//   shard 1:                          [block ....cursor|          free       ]
//
// Thread safety: Allocate and AllocateAligned may be called from many threads
// at once. A thread takes from the shard of its ThreadSlot(), under that
// shard's spin lock (a few instructions; a new block is taken from the
// system outside it), so two threads only share a lock when their slots
// collide modulo kShards. The byte counts are readable from any thread.
//
// Invariants:
//  1. Memory handed out is never moved or freed before the arena is destroyed.
//  2. Allocate(bytes, alignment) returns an address aligned to `alignment`.
//  3. MemoryUsage() >= BytesUsed(): used counts the bytes handed out plus
//     the padding that aligned them; MemoryUsage counts whole blocks.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "concurrency/mutex.h"
#include "concurrency/per_thread.h"
#include "concurrency/spin_lock.h"
#include "memrep/rep.h"

namespace memrep::memory {

class Arena final : public Allocator {
 public:
  static constexpr size_t kAlignment = alignof(std::max_align_t);
  static constexpr size_t kShards = 16;
  static constexpr size_t kMinBlockSize = 4096;
  static constexpr size_t kDefaultBlockSize = 256 * 1024;
  // A larger request is refused (nullptr) without asking the system.
  static constexpr size_t kMaxAllocation = size_t{1} << 40;

  explicit Arena(size_t block_size = kDefaultBlockSize);
  ~Arena() override;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // `bytes` bytes (0 is served as 1) at an address aligned to `alignment`, a
  // power of two at most kAlignment; nullptr when the system has no memory
  // for a new block, or `bytes` is over kMaxAllocation.
  char* Allocate(size_t bytes, size_t alignment) noexcept;
  char* AllocateAligned(size_t bytes) noexcept override { return Allocate(bytes, kAlignment); }

  size_t block_size() const { return block_size_; }
  // Bytes of all blocks taken from the system. O(1), from any thread.
  size_t MemoryUsage() const { return allocated_.load(std::memory_order_relaxed); }
  // Bytes handed out, with the padding that aligned them. O(kShards).
  size_t BytesUsed() const;

 private:
  struct Shard {
    concurrency::SpinLock lock;
    char* cursor GUARDED_BY(lock) = nullptr;
    char* limit GUARDED_BY(lock) = nullptr;
    // Written under the lock, read by BytesUsed without it: relaxed, a
    // statistic.
    std::atomic<size_t> used{0};
  };

  // Carves `bytes` at `alignment` from the shard's block; nullptr when it
  // has no room.
  static char* Carve(Shard& shard, size_t bytes, size_t alignment) REQUIRES(shard.lock);
  // A new block of `bytes`, or nullptr.
  char* NewBlock(size_t bytes) noexcept;

  const size_t block_size_;
  concurrency::PerThread<Shard, kShards> shards_;
  concurrency::Mutex blocks_mu_;
  std::vector<std::unique_ptr<char[]>> blocks_ GUARDED_BY(blocks_mu_);
  std::atomic<size_t> allocated_{0};
  std::atomic<size_t> used_by_big_{0};  // blocks of their own, counted whole
};

}  // namespace memrep::memory
