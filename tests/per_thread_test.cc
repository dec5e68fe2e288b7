// PerThread: each element on cache lines of its own, a thread's element by
// its slot, and exact sums of per-thread counters written at once.
#include "concurrency/per_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace memrep::concurrency {
namespace {

TEST(PerThread, ElementsStartOnCacheLinesAndShareNone) {
  PerThread<uint64_t, 8> items;
  for (size_t i = 0; i < items.size(); ++i) {
    auto at = reinterpret_cast<uintptr_t>(&items[i]);
    EXPECT_EQ(at % kCacheLine, 0u) << "element " << i;
    if (i > 0) {
      EXPECT_GE(at - reinterpret_cast<uintptr_t>(&items[i - 1]), kCacheLine);
    }
  }
}

TEST(PerThread, AThreadsElementFollowsItsSlot) {
  PerThread<int, 4> items;
  EXPECT_EQ((PerThread<int, 4>::MineIndex()), ThreadSlot() % 4);
  EXPECT_EQ(&items.Mine(), &items[ThreadSlot() % 4]);
  EXPECT_EQ(&items.Mine(), &items.Mine()) << "the same element on every call";
  EXPECT_EQ(ThreadShard(3), ThreadSlot() % 3);
  std::thread other([&] { EXPECT_EQ(&items.Mine(), &items[ThreadSlot() % 4]); });
  other.join();
}

TEST(PerThread, ValueInitialisedAndVisitedInOrder) {
  PerThread<int, 5> items;
  int seen = 0;
  items.ForEach([&](int& v) {
    EXPECT_EQ(v, 0);
    v = ++seen;
  });
  EXPECT_EQ(seen, 5);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(items[i], static_cast<int>(i) + 1);
}

// More threads than elements: threads share elements, and relaxed per-thread
// increments still sum to the exact total (run under ThreadSanitizer in CI).
TEST(PerThread, CountersSumExactlyWithMoreThreadsThanElements) {
  PerThread<std::atomic<uint64_t>, 4> counts;
  constexpr int kThreads = 8, kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) counts.Mine().fetch_add(1, std::memory_order_relaxed);
    });
  }
  for (auto& t : threads) t.join();
  uint64_t sum = 0;
  counts.ForEach([&](const std::atomic<uint64_t>& c) { sum += c.load(std::memory_order_relaxed); });
  EXPECT_EQ(sum, uint64_t{kThreads} * kEach);
}

}  // namespace
}  // namespace memrep::concurrency
