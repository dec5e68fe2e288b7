// Arena: memrep's own entry memory for the standalone face.
//
// Thread safety: AllocateAligned may be called from many threads at once.
// Each thread allocates from one of kShards shards (by ThreadSlot), each with
// its own lock and current block, so concurrent writers rarely share a lock.
// Memory is released only when the arena is destroyed.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "memrep/rep.h"
#include "util/thread_slot.h"

namespace memrep::util {

class Arena final : public Allocator {
 public:
  static constexpr size_t kDefaultBlockSize = 256 * 1024;

  explicit Arena(size_t block_size = kDefaultBlockSize);
  ~Arena() override;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  char* AllocateAligned(size_t bytes) override;

  // Bytes of all blocks taken from the system. O(1), from any thread.
  size_t MemoryUsage() const { return allocated_.load(std::memory_order_relaxed); }

 private:
  static constexpr size_t kShards = 8;
  struct alignas(kCacheLine) Shard {
    std::mutex mu;
    char* cursor = nullptr;  // GUARDED_BY(mu)
    size_t remaining = 0;    // GUARDED_BY(mu)
  };

  char* NewBlock(size_t bytes);

  const size_t block_size_;
  std::array<Shard, kShards> shards_;
  std::mutex blocks_mu_;
  std::vector<std::unique_ptr<char[]>> blocks_;  // GUARDED_BY(blocks_mu_)
  std::atomic<size_t> allocated_{0};
};

}  // namespace memrep::util
