// ThreadChunks: every thread carves from a chunk of its own, goes to the
// chunk source once per chunk, and the sums of the per-thread counters are
// exact; ThreadSlot: numbers of exited threads are given to new ones, so the
// threads alive at once have dense numbers.
#include "memory/thread_chunks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "concurrency/thread_slot.h"

namespace memrep::memory {
namespace {

// A chunk source over a shared counter of positions, as a region's cursor:
// each take is one shared RMW, counted.
struct Source {
  std::atomic<uint64_t> next{1};
  std::atomic<uint64_t> takes{0};
  uint64_t chunk_units = 64;
  Status Take(uint64_t units, uint64_t* start, uint64_t* got) {
    const uint64_t size = std::max(units, chunk_units);
    *start = next.fetch_add(size, std::memory_order_relaxed);
    *got = size;
    takes.fetch_add(1, std::memory_order_relaxed);
    return Status::OK();
  }
};

TEST(ThreadChunks, OneThreadCarvesInOrderAndTakesOncePerChunk) {
  ThreadChunks chunks;
  Source source;
  auto take = [&](uint64_t u, uint64_t* s, uint64_t* n) { return source.Take(u, s, n); };
  uint64_t start = 0, expected = 1;
  for (int i = 0; i < 64; ++i) {
    ASSERT_TRUE(chunks.Carve(4, take, &start).ok());
    EXPECT_EQ(start, expected) << "allocation " << i;
    expected += 4;
  }
  EXPECT_EQ(source.takes.load(), 4u) << "64 carves of 4 units from chunks of 64";
  EXPECT_EQ(chunks.CarvedUnits(), 256u);
  EXPECT_EQ(chunks.UnusedUnits(), 0u);
}

TEST(ThreadChunks, ARestThatDoesNotFitGoesToLeftoverAndStillCounts) {
  ThreadChunks chunks;
  Source source;
  auto take = [&](uint64_t u, uint64_t* s, uint64_t* n) { return source.Take(u, s, n); };
  std::vector<std::pair<uint64_t, uint64_t>> rests;
  auto leftover = [&](uint64_t s, uint64_t n) { rests.emplace_back(s, n); };
  uint64_t start = 0;
  ASSERT_TRUE(chunks.Carve(40, take, leftover, &start).ok());  // chunk [1, 65)
  EXPECT_EQ(chunks.UnusedUnits(), 24u);
  ASSERT_TRUE(chunks.Carve(30, take, leftover, &start).ok());  // does not fit in 24
  EXPECT_EQ(start, 65u);
  ASSERT_EQ(rests.size(), 1u);
  EXPECT_EQ(rests[0], std::make_pair(uint64_t{41}, uint64_t{24}));
  EXPECT_EQ(chunks.CarvedUnits(), 40u + 24u + 30u) << "a leftover counts as handed out";
  EXPECT_EQ(chunks.UnusedUnits(), 34u);
  ASSERT_TRUE(chunks.Carve(200, take, leftover, &start).ok());  // bigger than a chunk
  EXPECT_EQ(start, 129u);
  EXPECT_EQ(rests.back(), std::make_pair(uint64_t{95}, uint64_t{34}));
}

TEST(ThreadChunks, AFailedTakeHandsOutNothing) {
  ThreadChunks chunks;
  auto refuse = [](uint64_t, uint64_t*, uint64_t*) { return Status::Full("no more"); };
  uint64_t start = 7;
  Status s = chunks.Carve(4, refuse, &start);
  EXPECT_TRUE(s.IsFull()) << s.ToString();
  EXPECT_EQ(start, 7u);
  EXPECT_EQ(chunks.CarvedUnits(), 0u);

  // A chunk in place stays when a new one cannot be had: what still fits
  // its rest is handed out.
  Source source;
  auto take = [&](uint64_t u, uint64_t* st, uint64_t* n) { return source.Take(u, st, n); };
  ASSERT_TRUE(chunks.Carve(40, take, &start).ok());
  EXPECT_TRUE(chunks.Carve(30, refuse, &start).IsFull());
  ASSERT_TRUE(chunks.Carve(8, refuse, &start).ok());
  EXPECT_EQ(start, 41u);
}

// Many threads (more than the slots, so some share a slot's chunk): every
// position is handed out once, and the sums are exact once they are done.
TEST(ThreadChunks, ConcurrentCarvesNeverOverlapAndSumExactly) {
  ThreadChunks chunks;
  Source source;
  constexpr int kThreads = static_cast<int>(ThreadChunks::kSlots) + 4;
  constexpr int kEach = 3000;
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto take = [&](uint64_t u, uint64_t* s, uint64_t* n) { return source.Take(u, s, n); };
      for (int i = 0; i < kEach; ++i) {
        const uint64_t units = 1 + (i * 7 + t) % 9;
        uint64_t start = 0;
        ASSERT_TRUE(chunks.Carve(units, take, &start).ok());
        got[t].emplace_back(start, units);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<std::pair<uint64_t, uint64_t>> all;
  uint64_t units = 0;
  for (const auto& g : got) {
    all.insert(all.end(), g.begin(), g.end());
    for (const auto& [s, n] : g) units += n;
  }
  std::sort(all.begin(), all.end());
  for (size_t i = 1; i < all.size(); ++i) {
    ASSERT_LE(all[i - 1].first + all[i - 1].second, all[i].first) << "overlap at " << i;
  }
  // Every take's units are carved or still free, except the rests dropped
  // when an allocation did not fit (at most one per take).
  EXPECT_EQ(chunks.CarvedUnits() + chunks.UnusedUnits(), source.next.load() - 1);
  EXPECT_GE(chunks.CarvedUnits(), units);
  EXPECT_LT(source.takes.load(), uint64_t{kThreads} * kEach / 4)
      << "a take per chunk, not per carve";
}

}  // namespace
}  // namespace memrep::memory

namespace memrep::concurrency {
namespace {

TEST(ThreadSlot, ExitedThreadsNumbersAreGivenToNewThreads) {
  // Threads that run one after another, each after the last has exited, get
  // numbers no higher than the live threads need: the numbers are dense.
  std::set<uint32_t> seen;
  for (int i = 0; i < 50; ++i) {
    uint32_t slot = 0;
    std::thread t([&] { slot = ThreadSlot(); });
    t.join();
    seen.insert(slot);
  }
  // (Not 1: a thread of the process that starts meanwhile may take one.)
  EXPECT_LE(seen.size(), 5u) << "50 threads in turn reused their numbers";
}

TEST(ThreadSlot, LiveThreadsHoldDistinctNumbersBelowTheirCount) {
  constexpr int kThreads = 12;
  std::vector<uint32_t> slots(kThreads);
  std::barrier sync(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      slots[t] = ThreadSlot();
      EXPECT_EQ(ThreadSlot(), slots[t]) << "a thread keeps its number";
      sync.arrive_and_wait();  // all alive at once
    });
  }
  for (auto& t : threads) t.join();
  std::set<uint32_t> distinct(slots.begin(), slots.end());
  EXPECT_EQ(distinct.size(), size_t{kThreads});
}

}  // namespace
}  // namespace memrep::concurrency
