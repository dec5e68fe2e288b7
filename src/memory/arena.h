// Arena: memrep's own memory for the standalone face's rows.
//
// Thread safety: AllocateAligned may be called from many threads at once.
// Each thread allocates from one of kShards shards (by ThreadSlot), each with
// its own lock and current block, so concurrent writers rarely share a lock.
// Memory is released only when the arena is destroyed.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "concurrency/mutex.h"
#include "concurrency/per_thread.h"
#include "memrep/rep.h"

namespace memrep::memory {

class Arena final : public Allocator {
 public:
  static constexpr size_t kDefaultBlockSize = 256 * 1024;

  explicit Arena(size_t block_size = kDefaultBlockSize);
  ~Arena() override;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // nullptr when the system has no memory for a new block.
  char* AllocateAligned(size_t bytes) noexcept override;

  // Bytes of all blocks taken from the system. O(1), from any thread.
  size_t MemoryUsage() const { return allocated_.load(std::memory_order_relaxed); }

 private:
  static constexpr size_t kShards = 8;
  struct Shard {
    concurrency::Mutex mu;
    char* cursor GUARDED_BY(mu) = nullptr;
    size_t remaining GUARDED_BY(mu) = 0;
  };

  // A new block of `bytes`, or nullptr.
  char* NewBlock(size_t bytes) noexcept;

  const size_t block_size_;
  concurrency::PerThread<Shard, kShards> shards_;
  concurrency::Mutex blocks_mu_;
  std::vector<std::unique_ptr<char[]>> blocks_ GUARDED_BY(blocks_mu_);
  std::atomic<size_t> allocated_{0};
};

}  // namespace memrep::memory
