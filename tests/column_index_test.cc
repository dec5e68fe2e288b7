// The columnar rep's growing point index (src/columnar/column_index.h) and
// its cover (concurrency/generations.h): the newest table holds a bit per
// older key, so a new key is ruled out by one table. These tests check the
// cover never loses a key (a lookup or a duplicate check that trusted it
// would miss the key's versions) and that it does rule keys out; and the
// slot mapping across table sizes the cover relies on (util/fast_range.h).
#include "columnar/column_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "memory/arena.h"
#include "test_util.h"
#include "util/fast_range.h"
#include "util/hash64.h"

namespace memrep {
namespace {

using memory::RowRef;
using testing::InternalKey;
using testing::NumberKey;

TEST(FastRange, SlotsAcrossHoldEveryHashOfTheSlot) {
  std::mt19937_64 rng(3);
  const uint64_t counts[][2] = {{1, 8}, {64, 512}, {8, 32}, {100, 333}, {777, 1000}, {5, 5}};
  for (const auto& c : counts) {
    for (int i = 0; i < 20000; ++i) {
      const uint64_t h = rng();
      uint64_t first, last;
      util::SlotsAcross(util::FastRange32(h, c[0]), c[0], c[1], &first, &last);
      const uint64_t slot = util::FastRange32(h, c[1]);
      ASSERT_LE(first, slot) << c[0] << " -> " << c[1];
      ASSERT_GE(last, slot) << c[0] << " -> " << c[1];
    }
    // A multiple maps each slot onto exactly its own stretch.
    if (c[1] % c[0] == 0) {
      for (uint64_t s = 0; s < c[0]; ++s) {
        uint64_t first, last;
        util::SlotsAcross(s, c[0], c[1], &first, &last);
        ASSERT_EQ(first, s * (c[1] / c[0]));
        ASSERT_EQ(last, first + c[1] / c[0] - 1);
      }
    }
  }
  uint64_t first, last;
  util::SlotsAcross((uint64_t{1} << 32) - 1, uint64_t{1} << 32, uint64_t{1} << 32, &first, &last);
  EXPECT_EQ(first, (uint64_t{1} << 32) - 1);
  EXPECT_EQ(last, first);
}

// --- the columnar index ----------------------------------------------------

class ColumnFixture {
 public:
  ColumnFixture(uint64_t first, uint64_t max, uint64_t bytes_per_bucket)
      : region_(&arena_, 4096, sizeof(columnar::Node), memory::RowRegion::kMaxBytes,
                columnar::kNodeUnitBytes),
        index_(&region_, first, max, bytes_per_bucket) {
    EXPECT_TRUE(region_.Init().ok());
    EXPECT_TRUE(index_.Init(&arena_).ok());
  }
  columnar::ColumnIndex::Result Insert(const std::string& key, SequenceNumber seq, int tables = 0) {
    return InsertWith(&stash_, key, seq, tables);
  }
  // Insert by a thread with a stash of its own.
  columnar::ColumnIndex::Result InsertWith(columnar::ColumnIndex::OverflowStash* stash,
                                           const std::string& key, SequenceNumber seq,
                                           int tables = 0) {
    RowRef ref;
    EXPECT_TRUE(region_.Allocate(RowSize(key.size(), 1), &ref).ok());
    auto* node = new (region_.At(ref)) columnar::Node();
    EncodeRow(node->row(), EntryView{key, PackTag(seq, 1), "v"});
    const uint64_t hash = util::Hash(key);
    const auto result = tables == 0 ? index_.Insert(order_, ref, hash, stash)
                                    : index_.InsertSeeing(order_, ref, hash, stash, tables);
    entries_ += result == columnar::ColumnIndex::Result::kLinked ||
                result == columnar::ColumnIndex::Result::kLinkedVersion;
    index_.MaybeGrow(region_.ChunkBytes(), [&] { return entries_.load(); });
    return result;
  }
  std::vector<SequenceNumber> Versions(const std::string& key) const {
    RowRef heads[columnar::ColumnIndex::kMaxTables];
    std::vector<SequenceNumber> seqs;
    const int n = index_.FindChains(order_, key, util::Hash(key), heads);
    for (int i = 0; i < n; ++i) {
      for (RowRef r = heads[i]; r != 0; r = index_.Older(r)) {
        seqs.push_back(columnar::NodeAt(region_, r)->sequence());
      }
    }
    std::sort(seqs.rbegin(), seqs.rend());
    return seqs;
  }

  memory::Arena arena_;
  std::atomic<uint64_t> entries_{0};
  memory::RowRegion region_;
  format::KeyOrder order_{nullptr};
  columnar::ColumnIndex index_;
  columnar::ColumnIndex::OverflowStash stash_;
};

using Result = columnar::ColumnIndex::Result;

TEST(ColumnIndex, ACoverHoldsEveryOlderKeyAndRulesOutTheRest) {
  for (const auto& counts : {std::pair<uint64_t, uint64_t>{8, 32}, {100, 333}}) {
    ColumnFixture f(counts.first, counts.first, 64);
    memory::Arena arena;
    columnar::ColumnTable newer(counts.second, &f.region_, /*with_older=*/true);
    ASSERT_TRUE(newer.Init(&arena).ok());
    // Twelve keys a bucket on average: overflow buckets too.
    const int keys = static_cast<int>(counts.first * 12);
    for (int i = 0; i < keys; ++i) ASSERT_EQ(f.Insert(NumberKey(i), 1), Result::kLinked);
    newer.Cover(f.index_.TableForTest(0));
    for (int i = 0; i < keys; ++i) ASSERT_TRUE(newer.MayBeOlder(util::Hash(NumberKey(i)))) << i;
    int ruled_out = 0;
    for (int i = keys; i < keys + 10000; ++i)
      ruled_out += !newer.MayBeOlder(util::Hash(NumberKey(i)));
    // Three or four keys' bits of 64 a bucket of the newer table: about 95%
    // of absent keys are ruled out.
    EXPECT_GT(ruled_out, 9000) << counts.first << " -> " << counts.second;
  }
}

TEST(ColumnIndex, AKeyLinkedIntoAnOlderTableAfterTheCoverIsFound) {
  ColumnFixture f(/*first=*/2, /*max=*/1 << 20, /*bytes_per_bucket=*/64);
  for (int i = 0; f.index_.NumTables() < 3; ++i) {
    ASSERT_EQ(f.Insert(NumberKey(i), 1), Result::kLinked);
  }
  for (int i = 0; i < 300; ++i) {
    const std::string key = "late" + std::to_string(i);
    ASSERT_EQ(f.Insert(key, 5, /*tables=*/1 + i % 2), Result::kLinked);
    ASSERT_EQ(f.Versions(key), std::vector<SequenceNumber>{5}) << key;
    ASSERT_EQ(f.Insert(key, 5), Result::kDuplicate) << key;
    ASSERT_EQ(f.Insert(key, 6), Result::kLinkedVersion) << key;
    ASSERT_EQ(f.Versions(key), (std::vector<SequenceNumber>{6, 5})) << key;
  }
}

TEST(ColumnIndex, AnIndexOfManyTablesFindsEveryKeyAndNoAbsentOne) {
  ColumnFixture f(/*first=*/1, /*max=*/1 << 20, /*bytes_per_bucket=*/16);
  constexpr int kKeys = 30000;
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_EQ(f.Insert(NumberKey(i * 7 % kKeys), 1 + i % 5), Result::kLinked);
  }
  ASSERT_GE(f.index_.NumTables(), 5);
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_EQ(f.Versions(NumberKey(i * 7 % kKeys)).size(), 1u) << i;
    ASSERT_EQ(f.Insert(NumberKey(i * 7 % kKeys), 1 + i % 5), Result::kDuplicate) << i;
  }
  for (int i = kKeys; i < kKeys + 1000; ++i) ASSERT_TRUE(f.Versions(NumberKey(i)).empty());
}

TEST(ColumnIndex, WritersRacingAcrossGrowthsLoseNoKey) {
  // Tiny tables that grow every few rows, so that growths (and their covers)
  // run while the other writers link new keys and versions of shared ones;
  // a reader looks for keys already inserted meanwhile. Under TSan this
  // checks the cover's memory orders.
  ColumnFixture f(/*first=*/1, /*max=*/1 << 16, /*bytes_per_bucket=*/8);
  constexpr int kThreads = 4, kPerThread = 4000, kShared = 16;
  std::atomic<int> published{0};
  std::atomic<bool> done{false};
  std::atomic<uint64_t> bad{0};
  std::thread reader([&] {
    while (!done.load(std::memory_order_acquire)) {
      // Thread 0's keys below `published` were inserted before it was stored.
      const int n = published.load(std::memory_order_acquire);
      for (int i = 0; i < n; i += 97) {
        if (i % 3 != 0 && f.Versions("t0-" + std::to_string(i)).size() != 1) bad.fetch_add(1);
      }
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      columnar::ColumnIndex::OverflowStash stash;
      for (int i = 0; i < kPerThread; ++i) {
        const SequenceNumber seq = 1 + static_cast<SequenceNumber>(i) * kThreads + t;
        const std::string key =
            i % 3 == 0 ? NumberKey(i % kShared) : "t" + std::to_string(t) + "-" + std::to_string(i);
        const Result r = f.InsertWith(&stash, key, seq);
        if (r != Result::kLinked && r != Result::kLinkedVersion) bad.fetch_add(1);
        if (t == 0) published.store(i + 1, std::memory_order_release);
      }
    });
  }
  for (auto& w : writers) w.join();
  done.store(true, std::memory_order_release);
  reader.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_GE(f.index_.NumTables(), 5);
  std::vector<size_t> shared_versions(kShared, 0);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      if (i % 3 == 0) {
        ++shared_versions[i % kShared];
      } else {
        ASSERT_EQ(f.Versions("t" + std::to_string(t) + "-" + std::to_string(i)).size(), 1u);
      }
    }
  }
  for (int k = 0; k < kShared; ++k) ASSERT_EQ(f.Versions(NumberKey(k)).size(), shared_versions[k]);
}

}  // namespace
}  // namespace memrep
