#include "memory/arena.h"

#include <new>

namespace memrep::memory {

Arena::Arena(size_t block_size) : block_size_(block_size < 4096 ? 4096 : block_size) {}

Arena::~Arena() = default;

char* Arena::NewBlock(size_t bytes) noexcept {
  try {
    auto block = std::make_unique_for_overwrite<char[]>(bytes);
    char* p = block.get();
    {
      concurrency::MutexLock lock(&blocks_mu_);
      blocks_.push_back(std::move(block));
    }
    // relaxed: a statistic, read without ordering by MemoryUsage().
    allocated_.fetch_add(bytes, std::memory_order_relaxed);
    return p;
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

char* Arena::AllocateAligned(size_t bytes) noexcept {
  constexpr size_t kAlign = alignof(std::max_align_t);
  if (bytes > SIZE_MAX - kAlign) return nullptr;
  bytes = (bytes + kAlign - 1) & ~(kAlign - 1);
  if (bytes == 0) bytes = kAlign;
  if (bytes > block_size_ / 4) return NewBlock(bytes);  // big: its own block, no waste

  Shard& shard = shards_.Mine();
  concurrency::MutexLock lock(&shard.mu);
  if (shard.remaining < bytes) {
    char* block = NewBlock(block_size_);
    if (block == nullptr) return nullptr;
    shard.cursor = block;
    shard.remaining = block_size_;
  }
  char* p = shard.cursor;
  shard.cursor += bytes;
  shard.remaining -= bytes;
  return p;
}

}  // namespace memrep::memory
