// memrep_bench's allocator shim: RocksDB's Allocator ABI over memory::Arena.
// Alignment, byte counts, and many threads at once.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "shim_arena.h"

namespace memrep::bench {
namespace {

bool Aligned(const char* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

TEST(ShimArena, AlignedAllocationsAreAlignedAfterUnalignedOnes) {
  ShimArena arena(4096);
  for (size_t size : {1, 3, 7, 8, 13, 16, 17, 100, 1000}) {
    char* odd = arena.Allocate(size);
    ASSERT_NE(odd, nullptr);
    char* aligned = arena.AllocateAligned(size);
    EXPECT_TRUE(Aligned(aligned, ShimArena::kAlignment)) << "size " << size;
    std::memset(odd, 0x11, size);  // the memory is writable (ASan checks the bounds)
    std::memset(aligned, 0x22, size);
  }
}

TEST(ShimArena, UsedCountsBytesAndPaddingReservedCountsBlocks) {
  ShimArena arena(4096);
  EXPECT_EQ(arena.BlockSize(), 4096u);
  EXPECT_EQ(arena.BytesUsed(), 0u);
  EXPECT_EQ(arena.BytesReserved(), 0u);

  arena.AllocateAligned(32);
  EXPECT_EQ(arena.BytesUsed(), 32u);
  EXPECT_EQ(arena.BytesReserved(), 4096u);

  arena.Allocate(5);  // unaligned: no padding
  EXPECT_EQ(arena.BytesUsed(), 37u);
  arena.AllocateAligned(16);  // pads 37 up to 48
  EXPECT_EQ(arena.BytesUsed(), 64u);

  // A quarter block or less comes from blocks; more gets a block of its own.
  arena.AllocateAligned(2000);
  EXPECT_EQ(arena.BytesUsed(), 2064u);
  EXPECT_EQ(arena.BytesReserved(), 4096u + 2000u);
  EXPECT_GE(arena.BytesReserved(), arena.BytesUsed());
}

TEST(ShimArena, ANewBlockWhenTheCurrentOneIsFull) {
  ShimArena arena(4096);
  for (int i = 0; i < 4096 / 512; ++i) arena.AllocateAligned(512);
  EXPECT_EQ(arena.BytesReserved(), 4096u);
  arena.AllocateAligned(512);
  EXPECT_EQ(arena.BytesReserved(), 8192u);
  EXPECT_EQ(arena.BytesUsed(), 9u * 512);
}

TEST(ShimArena, SmallBlockSizesAreRaisedToTheMinimum) {
  ShimArena arena(10);
  EXPECT_EQ(arena.BlockSize(), ShimArena::kMinBlockSize);
  EXPECT_NE(arena.Allocate(0), nullptr);  // served as one byte
}

TEST(ShimArena, UsableAsRocksDbAllocator) {
  ShimArena arena;
  ROCKSDB_NAMESPACE::Allocator* allocator = &arena;
  char* p = allocator->AllocateAligned(24);
  EXPECT_TRUE(Aligned(p, ShimArena::kAlignment));
  EXPECT_EQ(allocator->BlockSize(), ShimArena::kDefaultBlockSize);
}

// Threads allocate at once and fill their memory with their own byte; no
// byte may be overwritten by another thread, and every byte is counted.
TEST(ShimArena, ConcurrentAllocationsNeitherOverlapNorGetLost) {
  ShimArena arena(8192);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  std::vector<std::vector<std::pair<char*, size_t>>> taken(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const size_t size = 16 * (1 + (i * 7 + t) % 8);  // multiples of 16: no padding
        char* p = arena.AllocateAligned(size);
        ASSERT_TRUE(Aligned(p, ShimArena::kAlignment));
        std::memset(p, 'a' + t, size);
        taken[t].emplace_back(p, size);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  size_t total = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (auto [p, size] : taken[t]) {
      total += size;
      for (size_t i = 0; i < size; ++i) ASSERT_EQ(p[i], 'a' + t);
    }
  }
  EXPECT_EQ(arena.BytesUsed(), total);
  EXPECT_GE(arena.BytesReserved(), total);
}

}  // namespace
}  // namespace memrep::bench
