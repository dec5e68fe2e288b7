#include "shim_arena.h"

#include <cstdint>
#include <thread>

namespace memrep::bench {

ShimArena::ShimArena(size_t block_size)
    : block_size_(block_size < kMinBlockSize ? kMinBlockSize : block_size) {}

ShimArena::~ShimArena() = default;

char* ShimArena::NewBlock(size_t bytes) {
  // Not zeroed: a block's pages are touched only as entries are written, as
  // with malloc'd arena blocks in RocksDB.
  auto block = std::make_unique_for_overwrite<char[]>(bytes);
  char* p = block.get();
  {
    std::lock_guard<std::mutex> lock(blocks_mu_);
    blocks_.push_back(std::move(block));
  }
  // relaxed: a statistic, ordered with nothing.
  reserved_.fetch_add(bytes, std::memory_order_relaxed);
  return p;
}

char* ShimArena::Take(size_t bytes, size_t alignment) {
  if (bytes == 0) bytes = 1;
  if (bytes > block_size_ / 4) {
    // operator new[] aligns to __STDCPP_DEFAULT_NEW_ALIGNMENT__ >= kAlignment.
    used_by_big_.fetch_add(bytes, std::memory_order_relaxed);
    return NewBlock(bytes);
  }
  Shard& shard = shards_.Mine();
  // acquire: pairs with the release below, so the cursor written by the
  // previous holder is seen.
  while (shard.busy.exchange(true, std::memory_order_acquire)) {
    while (shard.busy.load(std::memory_order_relaxed)) std::this_thread::yield();
  }
  const auto cursor = reinterpret_cast<uintptr_t>(shard.cursor);
  size_t padding = (alignment - (cursor & (alignment - 1))) & (alignment - 1);
  if (shard.cursor == nullptr ||
      padding + bytes > static_cast<size_t>(shard.limit - shard.cursor)) {
    shard.cursor = NewBlock(block_size_);
    shard.limit = shard.cursor + block_size_;
    padding = 0;  // a new block is aligned
  }
  char* p = shard.cursor + padding;
  shard.cursor = p + bytes;
  // Only the holder of busy writes `used`: a load and a store suffice.
  shard.used.store(shard.used.load(std::memory_order_relaxed) + padding + bytes,
                   std::memory_order_relaxed);
  shard.busy.store(false, std::memory_order_release);
  return p;
}

char* ShimArena::Allocate(size_t bytes) { return Take(bytes, 1); }

char* ShimArena::AllocateAligned(size_t bytes, size_t /*huge_page_size*/,
                                 ROCKSDB_NAMESPACE::Logger* /*logger*/) {
  return Take(bytes, kAlignment);
}

size_t ShimArena::BytesUsed() const {
  size_t total = used_by_big_.load(std::memory_order_relaxed);
  shards_.ForEach([&](const Shard& shard) { total += shard.used.load(std::memory_order_relaxed); });
  return total;
}

}  // namespace memrep::bench
