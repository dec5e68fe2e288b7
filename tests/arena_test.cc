// memory::Arena: alignment, byte counts, and what it answers to a request
// it cannot serve (nullptr, never an exception). The adapter the bench
// puts over it is tested in tests/bench/bench_arena_test.cc, with many
// threads at once.
#include "memory/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace memrep::memory {
namespace {

TEST(Arena, EachAlignmentIsHonouredAfterOddSizes) {
  Arena arena(4096);
  for (size_t alignment : {1, 2, 4, 8, 16}) {
    arena.Allocate(3, 1);  // leaves the cursor odd
    char* p = arena.Allocate(24, alignment);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << "alignment " << alignment;
    std::memset(p, 0x5a, 24);  // writable (ASan checks the bounds)
  }
  EXPECT_LE(arena.BytesUsed(), arena.MemoryUsage());
}

TEST(Arena, AllocateAlignedIsTheAllocatorsAlignment) {
  Arena arena;
  Allocator* allocator = &arena;
  allocator->AllocateAligned(5);
  char* p = allocator->AllocateAligned(5);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % Arena::kAlignment, 0u);
  EXPECT_EQ(arena.BytesUsed(), Arena::kAlignment + 5);
  EXPECT_EQ(arena.MemoryUsage(), Arena::kDefaultBlockSize);
}

// (Beyond kMaxAllocation the system is not asked: a sanitizer would abort
// on such a request rather than let new[] throw.)
TEST(Arena, ARequestOverTheLimitIsNullNotAnException) {
  Arena arena;
  EXPECT_EQ(arena.Allocate(Arena::kMaxAllocation + 1, 16), nullptr);
  EXPECT_EQ(arena.AllocateAligned(SIZE_MAX), nullptr);
  EXPECT_EQ(arena.MemoryUsage(), 0u);
  EXPECT_EQ(arena.BytesUsed(), 0u);
  EXPECT_NE(arena.Allocate(8, 8), nullptr) << "the arena still serves afterwards";
}

}  // namespace
}  // namespace memrep::memory
