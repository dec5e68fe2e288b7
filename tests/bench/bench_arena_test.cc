// memrep_bench's allocator shim: RocksDB's Allocator ABI over memory::Arena.
// Alignment, byte counts and RocksDB's Allocator ABI; many threads at once
// are memory::Arena's own test (tests/arena_test.cc).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

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

}  // namespace
}  // namespace memrep::bench
