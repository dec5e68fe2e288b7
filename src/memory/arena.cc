#include "memory/arena.h"

#include <cstdint>
#include <new>

namespace memrep::memory {

Arena::Arena(size_t block_size)
    : block_size_(block_size < kMinBlockSize ? kMinBlockSize : block_size) {}

Arena::~Arena() = default;

char* Arena::NewBlock(size_t bytes) noexcept {
  try {
    // Not zeroed: a block's pages are touched only as rows are written.
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

char* Arena::Carve(Shard& shard, size_t bytes, size_t alignment) {
  if (shard.cursor == nullptr) return nullptr;
  const auto cursor = reinterpret_cast<uintptr_t>(shard.cursor);
  const size_t padding = (alignment - (cursor & (alignment - 1))) & (alignment - 1);
  if (padding + bytes > static_cast<size_t>(shard.limit - shard.cursor)) return nullptr;
  char* p = shard.cursor + padding;
  shard.cursor = p + bytes;
  // Only the lock's holder writes `used`: a load and a store suffice.
  shard.used.store(shard.used.load(std::memory_order_relaxed) + padding + bytes,
                   std::memory_order_relaxed);
  return p;
}

char* Arena::Allocate(size_t bytes, size_t alignment) noexcept {
  if (bytes == 0) bytes = 1;
  if (bytes > kMaxAllocation) return nullptr;
  if (bytes > block_size_ / 4) {
    // Big: a block of its own (operator new[] aligns to at least kAlignment).
    char* p = NewBlock(bytes);
    if (p != nullptr) used_by_big_.fetch_add(bytes, std::memory_order_relaxed);
    return p;
  }
  Shard& shard = shards_.Mine();
  {
    concurrency::SpinLockHolder guard(&shard.lock);
    if (char* p = Carve(shard, bytes, alignment)) return p;
  }
  // The block is full: take a new one outside the lock (a critical section
  // never allocates), then install it. Should another thread of this shard
  // have installed one meanwhile, the rest of that one is left unused.
  char* block = NewBlock(block_size_);
  if (block == nullptr) return nullptr;
  concurrency::SpinLockHolder guard(&shard.lock);
  shard.cursor = block;
  shard.limit = block + block_size_;
  return Carve(shard, bytes, alignment);  // a new block is aligned and has room
}

size_t Arena::BytesUsed() const {
  size_t total = used_by_big_.load(std::memory_order_relaxed);
  shards_.ForEach([&](const Shard& shard) { total += shard.used.load(std::memory_order_relaxed); });
  return total;
}

}  // namespace memrep::memory
