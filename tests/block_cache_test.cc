#include "memory/block_cache.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "test_util.h"

namespace memrep::memory {
namespace {

template <typename T>
using Array = std::vector<T, BlockAllocator<T>>;

// The most the cache holds: each shared class's Keep, and each thread's
// cache of the small classes.
size_t CacheBound() {
  size_t bound = 0;
  for (size_t block = BlockCache::kMinBlock; block <= BlockCache::kMaxCachedBlock; block *= 2) {
    bound += BlockCache::Keep(block) * block;
    if (block <= BlockCache::kLocalMaxBlock) {
      bound += BlockCache::kThreads * BlockCache::kLocalKeep * block;
    }
  }
  return bound;
}

TEST(BlockCache, AFreedBigArrayLeavesTheProcessAtOnce) {
  // Make malloc keep big freed blocks, as glibc does on its own once its
  // dynamic mmap threshold has risen (a sanitizer's allocator quarantines
  // them instead): an array through malloc would stay resident after it is
  // freed and fail this test; a mapped one leaves.
  constexpr size_t kBig = size_t{16} << 20;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  const size_t before = testing::ResidentBytes();
  ASSERT_GT(before, 0u);
  {
    Array<uint8_t> big(kBig, 7);  // every page touched
    EXPECT_GE(testing::ResidentBytes(), before + kBig * 3 / 4);
    EXPECT_EQ(big[kBig - 1], 7);
  }
  const size_t after = testing::ResidentBytes();
  mallopt(M_MMAP_THRESHOLD, 128 << 10);  // glibc's default again (now fixed)
  mallopt(M_TRIM_THRESHOLD, 128 << 10);
  EXPECT_LT(after, before + kBig / 4);
}

TEST(BlockCache, ArraysGrowMoveAndFreeThroughEitherPath) {
  // Growing by push_back crosses the threshold: each reallocation frees the
  // old block by the path that allocated it (ASan checks the small ones).
  Array<uint64_t> a;
  for (uint64_t i = 0; i < 100000; ++i) a.push_back(i * 3);
  Array<uint64_t> b = std::move(a);
  Array<uint64_t> c(b.begin(), b.begin() + 10);
  ASSERT_EQ(b.size(), 100000u);
  for (uint64_t i = 0; i < b.size(); ++i) ASSERT_EQ(b[i], i * 3);
  EXPECT_EQ(c.back(), 27u);
}

TEST(BlockCache, AFreedBlockIsReusedByTheNextArrayOfItsClass) {
  // A merge frees its inputs' arrays and makes its output's, and a reader
  // frees the levels a writer made: a block of the same size class comes
  // back from the cache (resident, where it was mapped) instead of from
  // malloc or the kernel. Small and mapped classes alike.
  BlockCache& cache = BlockCache::Shared();
  for (const size_t entries : {size_t{100}, (size_t{1} << 20) / sizeof(uint64_t) - 100}) {
    const uint64_t* first;
    uint64_t reused;
    {
      Array<uint64_t> a(entries, 1);
      first = a.data();
      reused = cache.Reused();
    }
    Array<uint64_t> b;
    b.reserve(entries - 10);  // a little smaller: the same class
    EXPECT_EQ(b.data(), first) << entries;
    EXPECT_EQ(cache.Reused(), reused + 1) << entries;
    b.assign(entries - 10, 5);
    EXPECT_EQ(b.back(), 5u);
  }
}

TEST(BlockCache, TheCacheOfFreedBlocksIsBounded) {
  // Many blocks of one class freed at once: the class keeps Keep(class) of
  // them; the rest are freed (these mapped ones leave the process).
  BlockCache& cache = BlockCache::Shared();
  constexpr size_t kBlock = size_t{1} << 20;
  const size_t keep = BlockCache::Keep(kBlock);
  ASSERT_GE(keep, 2u);
  {
    std::vector<Array<uint32_t>> arrays(3 * keep);
    for (auto& a : arrays) a.assign(kBlock / sizeof(uint32_t), 9);
  }
  const size_t resident = testing::ResidentBytes();
  EXPECT_GE(cache.CachedBytes(), keep * kBlock);
  {
    // Every cached 1 MiB block is taken, and one more is mapped.
    std::vector<Array<uint32_t>> arrays(keep + 1);
    for (auto& a : arrays) a.reserve(kBlock / sizeof(uint32_t));
    EXPECT_LE(testing::ResidentBytes(), resident + 2 * kBlock);
  }
  // The whole cache stays within about 13 MiB shared and 64 KiB a thread.
  size_t shared = 0, local = 0;
  for (size_t block = BlockCache::kMinBlock; block <= BlockCache::kMaxCachedBlock; block *= 2) {
    shared += BlockCache::Keep(block) * block;
    if (block <= BlockCache::kLocalMaxBlock) local += BlockCache::kLocalKeep * block;
  }
  EXPECT_LE(shared, size_t{14} << 20);
  EXPECT_LE(local, size_t{64} << 10);
  EXPECT_EQ(CacheBound(), shared + BlockCache::kThreads * local);
  EXPECT_LE(cache.CachedBytes(), CacheBound());
  // Sizes between classes round up, and the array reads and writes every
  // entry it asked for.
  Array<uint8_t> odd(kMappedMinBytes * 3 + 5, 4);
  EXPECT_EQ(odd[odd.size() - 1], 4);
}

TEST(BlockCache, BlocksAThreadFreesBeyondItsOwnCacheServeOtherThreads) {
  // A reader lets go of the levels a writer made: past the reader's own
  // cache they go to the shared class, where the writer's next takes find
  // them (not to malloc, which would free them into the writer's arena under
  // its lock). The reader stays alive meanwhile, so its thread's cache is
  // not the writer's.
  constexpr size_t kEntries = 2000;  // 2 KiB blocks
  constexpr size_t kFreed = 3 * BlockCache::kLocalKeep;
  std::vector<const uint8_t*> freed;
  std::atomic<bool> taken{false};
  std::atomic<bool> done{false};
  std::thread reader([&] {
    {
      std::vector<Array<uint8_t>> arrays(kFreed);
      for (auto& a : arrays) {
        a.assign(kEntries, 1);
        freed.push_back(a.data());
      }
    }
    done.store(true);
    while (!taken.load()) std::this_thread::yield();
  });
  while (!done.load()) std::this_thread::yield();
  // The writer's own cache holds at most kLocalKeep blocks of the class: the
  // next take comes from the shared class, whose newest blocks are the
  // reader's.
  std::vector<Array<uint8_t>> mine(BlockCache::kLocalKeep + 1);
  size_t from_reader = 0;
  for (auto& a : mine) {
    a.assign(kEntries, 2);
    from_reader += std::count(freed.begin(), freed.end(), a.data());
  }
  taken.store(true);
  reader.join();
  EXPECT_GE(from_reader, 1u);
  EXPECT_EQ(mine.back()[kEntries - 1], 2);
}

TEST(BlockCache, ThreadsTakingAndFreeingEachOthersBlocksNeverShareOne) {
  // Writers make levels and merges of every size while readers let go of
  // them on other threads: blocks go from one thread's hands to another's
  // cache, to the shared classes and back, many times over. Each array is
  // filled with its owner's mark and checked whole before it is handed on
  // and again before it is freed: a block handed out twice at once (a race
  // in a cache's list) would show another array's mark.
  constexpr int kThreads = 8;
  constexpr int kRounds = 1500;
  struct Handoff {
    std::mutex mu;
    std::vector<Array<uint32_t>> arrays;
  };
  std::vector<Handoff> handoffs(kThreads);
  std::atomic<uint64_t> checked{0};
  std::atomic<int> bad{0};
  auto check = [&](const Array<uint32_t>& a) {
    if (a.empty()) return;
    const uint32_t mark = a[0];
    for (const uint32_t v : a) {
      if (v != mark) {
        bad.fetch_add(1);
        return;
      }
    }
    checked.fetch_add(1, std::memory_order_relaxed);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(t + 1);
      std::vector<Array<uint32_t>> held;
      for (int round = 0; round < kRounds; ++round) {
        const uint64_t x = rng();
        // 64 B to 256 KiB: the per-thread classes, the shared ones and the
        // mapped ones; big ones rarely, as merges are.
        const int shift = static_cast<int>(x % 64 == 0 ? 10 + x / 64 % 7 : x / 64 % 11);
        const size_t entries = (size_t{16} << shift) - x % 7;
        const uint32_t mark = static_cast<uint32_t>(t) << 24 | static_cast<uint32_t>(round);
        held.emplace_back(entries, mark);
        if (held.size() > 6 || x % 3 == 0) {
          // Hand the oldest to another thread, which frees it.
          Array<uint32_t> a = std::move(held.front());
          held.erase(held.begin());
          check(a);
          Handoff& to = handoffs[(t + 1 + x % (kThreads - 1)) % kThreads];
          std::lock_guard<std::mutex> lock(to.mu);
          to.arrays.push_back(std::move(a));
        }
        std::vector<Array<uint32_t>> mine;
        {
          std::lock_guard<std::mutex> lock(handoffs[t].mu);
          mine.swap(handoffs[t].arrays);
        }
        for (const auto& a : mine) check(a);
      }
      for (const auto& a : held) check(a);
    });
  }
  for (auto& thread : threads) thread.join();
  for (auto& handoff : handoffs) {
    for (const auto& a : handoff.arrays) check(a);
  }
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GE(checked.load(), static_cast<uint64_t>(kThreads) * kRounds / 2);
  handoffs.clear();
  EXPECT_LE(BlockCache::Shared().CachedBytes(), CacheBound());
}

}  // namespace
}  // namespace memrep::memory
