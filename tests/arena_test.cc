// memory::Arena: alignment, byte counts, many threads at once (run under
// ThreadSanitizer in the tsan lane), and what it answers to a request it
// cannot serve (nullptr, never an exception). The adapter the bench puts
// over it is tested in tests/bench/bench_arena_test.cc.
#include "memory/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

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

// Threads allocate at once and fill their memory with their own byte; no
// byte may be overwritten by another thread, and every byte is counted.
// More threads than shards, so that threads share a shard's lock, and small
// blocks, so that they race to install a new one.
TEST(Arena, ConcurrentAllocationsNeitherOverlapNorGetLost) {
  Arena arena(8192);
  constexpr int kThreads = static_cast<int>(Arena::kShards) + 4;
  constexpr int kPerThread = 2000;
  std::vector<std::vector<std::pair<char*, size_t>>> taken(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const size_t size = 16 * (1 + (i * 7 + t) % 8);  // multiples of 16: no padding
        char* p = arena.AllocateAligned(size);
        ASSERT_NE(p, nullptr);
        ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % Arena::kAlignment, 0u);
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
  EXPECT_GE(arena.MemoryUsage(), total);
}

}  // namespace
}  // namespace memrep::memory
