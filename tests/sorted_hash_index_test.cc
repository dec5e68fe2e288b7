// The sorted hash rep's growing point index (src/sorted_hash/hash_index.h):
// it starts small, adds tables as its rows outgrow them, keeps every version
// of a key findable in order across growths, refuses duplicates across
// tables, merges a key that two writers linked into two tables, and its
// cover (the newest table's older words) holds every older key.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "memory/arena.h"
#include "sorted_hash/hash_index.h"
#include "sorted_hash/sorted_hash_rep.h"
#include "test_util.h"

namespace memrep::sorted_hash {
namespace {

using testing::InternalKey;
using testing::NumberKey;

// A HashIndex over its own region, with the rows it links.
class IndexFixture {
 public:
  IndexFixture(uint64_t first, uint64_t max, uint64_t bytes_per_bucket)
      : region_(&arena_, 4096, sizeof(Node)), index_(&region_, first, max, bytes_per_bucket) {
    EXPECT_TRUE(region_.Init().ok());
    EXPECT_TRUE(index_.Init(&arena_).ok());
  }

  // A node for (key, seq) in the region, not yet linked.
  Node* NewNode(const std::string& key, SequenceNumber seq, RowRef* ref) {
    const std::string value = "v" + std::to_string(seq);
    EXPECT_TRUE(region_.Allocate(RowSize(key.size(), value.size()), ref).ok());
    Node* node = new (region_.At(*ref)) Node();
    EncodeRow(const_cast<char*>(node->row()), EntryView{key, PackTag(seq, 1), value});
    return node;
  }
  // An insert by a writer that saw `tables` tables (0: all of them).
  bool Insert(const std::string& key, SequenceNumber seq, int tables = 0) {
    RowRef ref;
    Node* node = NewNode(key, seq, &ref);
    const uint64_t hash = util::Hash(key);
    const bool linked = tables == 0 ? index_.Insert(order_, node, ref, hash)
                                    : index_.InsertSeeing(order_, node, ref, hash, tables);
    entries_ += linked;
    index_.MaybeGrow(region_.ChunkBytes(), [&] { return entries_.load(); });
    return linked;
  }
  // The sequences ForEachVersion hands out for key at snapshot, in order.
  std::vector<SequenceNumber> Versions(const std::string& key,
                                       SequenceNumber snapshot = kMaxSequenceNumber) const {
    std::vector<SequenceNumber> seqs;
    const std::string ikey = InternalKey(key, snapshot);
    index_.ForEachVersion(order_, ikey, HashIndex::HashOf(ikey), [&](const Node* node) {
      seqs.push_back(DecodeRow(node->row()).sequence());
      return true;
    });
    return seqs;
  }

  memory::Arena arena_;
  std::atomic<uint64_t> entries_{0};
  RowRegion region_;
  format::KeyOrder order_{nullptr};
  HashIndex index_;
};

TEST(SortedHashIndex, StartsSmallAndGrowsWithItsRows) {
  // The automatic sizing: 64 buckets first, then eight times more each time
  // the rows pass 512 bytes a bucket of the newest table.
  IndexFixture f(HashIndex::kFirstBuckets, SortedHashOptions::kMaxBucketCount,
                 SortedHashOptions::kWriteBufferBytesPerBucket);
  EXPECT_EQ(f.index_.NumTables(), 1);
  EXPECT_EQ(f.index_.bytes(), HashTable::BytesFor(HashIndex::kFirstBuckets, false));
  constexpr int kKeys = 40000;
  for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(f.Insert(NumberKey(i * 7919 % kKeys), 1 + i % 3));
  const size_t rows = f.region_.ChunkBytes();
  EXPECT_GE(f.index_.NumTables(), 3) << rows << " bytes of rows";
  // Never more than the growth factor above a bucket per 512 bytes (and the
  // later tables' older words, a byte a bucket), and never below it by more
  // than that.
  const double ideal = static_cast<double>(rows) / 512 * sizeof(HashTable::Bucket);
  EXPECT_LE(f.index_.bytes(), ideal * HashIndex::kGrowth * 8 / 7 * 9 / 8 + 4096);
  EXPECT_GE(f.index_.bytes() * HashIndex::kGrowth, ideal);
  for (int i = 0; i < kKeys; ++i) {
    const int k = i * 7919 % kKeys;
    ASSERT_EQ(f.Versions(NumberKey(k)), std::vector<SequenceNumber>{SequenceNumber(1 + i % 3)})
        << NumberKey(k);
  }
  EXPECT_TRUE(f.Versions(NumberKey(kKeys + 1)).empty());
}

TEST(SortedHashIndex, AKeysLaterVersionsJoinItsGroupInAnOlderTable) {
  IndexFixture f(/*first=*/1, /*max=*/1 << 20, /*bytes_per_bucket=*/64);
  ASSERT_TRUE(f.Insert("apple", 10));
  for (int i = 0; i < 2000 && f.index_.NumTables() < 3; ++i) ASSERT_TRUE(f.Insert(NumberKey(i), 1));
  ASSERT_GE(f.index_.NumTables(), 3);
  ASSERT_TRUE(f.Insert("apple", 30));
  ASSERT_TRUE(f.Insert("apple", 20));
  EXPECT_EQ(f.Versions("apple"), (std::vector<SequenceNumber>{30, 20, 10}));
  EXPECT_EQ(f.Versions("apple", 25), (std::vector<SequenceNumber>{20, 10}));
  // A duplicate is found in the old table the key lives in.
  EXPECT_FALSE(f.Insert("apple", 10));
  EXPECT_FALSE(f.Insert("apple", 30));
  EXPECT_TRUE(f.index_.Contains(f.order_, InternalKey("apple", 20)));
  EXPECT_FALSE(f.index_.Contains(f.order_, InternalKey("apple", 21)));
}

TEST(SortedHashIndex, AWriterDelayedAcrossAGrowthMarksTheNewerTables) {
  // Writer V links "k" as a new key into the newest table; writer W, which
  // loaded the table count before the growth, then links "k" into the table
  // it saw as newest, not seeing V's group. Without W's mark a lookup would
  // stop at V's group and miss W's newer version.
  IndexFixture f(/*first=*/4, /*max=*/1 << 20, /*bytes_per_bucket=*/64);
  for (int i = 0; f.index_.NumTables() < 2; ++i) ASSERT_TRUE(f.Insert(NumberKey(i), 1));
  ASSERT_TRUE(f.Insert("k", 7));  // V: into table 1
  RowRef ref;
  Node* node = f.NewNode("k", 9, &ref);
  ASSERT_TRUE(f.index_.InsertSeeing(f.order_, node, ref, util::Hash(std::string_view("k")),
                                    /*tables=*/1));  // W: into table 0
  EXPECT_EQ(f.Versions("k"), (std::vector<SequenceNumber>{9, 7}));
  EXPECT_EQ(f.Versions("k", 8), (std::vector<SequenceNumber>{7}));
  // Duplicates are refused in either group, and Contains sees both.
  EXPECT_FALSE(f.Insert("k", 9));
  EXPECT_FALSE(f.Insert("k", 7));
  ASSERT_TRUE(f.Insert("k", 8));
  EXPECT_EQ(f.Versions("k"), (std::vector<SequenceNumber>{9, 8, 7}));
  EXPECT_TRUE(f.index_.Contains(f.order_, InternalKey("k", 9)));
  EXPECT_TRUE(f.index_.Contains(f.order_, InternalKey("k", 7)));
}

TEST(SortedHashIndex, AnExplicitBucketCountIsTheLargestTable) {
  IndexFixture f(/*first=*/4, /*max=*/64, /*bytes_per_bucket=*/16);
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(f.Insert(NumberKey(i), 1));
  EXPECT_EQ(f.index_.NumTables(), 3);  // 4, 32, then 64 (not 256)
  EXPECT_EQ(f.index_.bytes(), HashTable::BytesFor(4, false) + HashTable::BytesFor(32, true) +
                                  HashTable::BytesFor(64, true));
  for (int i = 0; i < 5000; i += 97) EXPECT_EQ(f.Versions(NumberKey(i)).size(), 1u);
}

TEST(SortedHashIndex, WritersRacingOnFewKeysAcrossGrowthsLoseNoVersion) {
  // Tiny tables that grow every few rows, writers inserting versions of the
  // same few keys (so that they link the same new key around growths), and a
  // reader checking that every key's versions come out strictly descending.
  // At the end every version is found, in order. Under TSan this also checks
  // the memory orders of the growth and of the split marks.
  IndexFixture f(/*first=*/1, /*max=*/1 << 16, /*bytes_per_bucket=*/8);
  constexpr int kThreads = 4, kPerThread = 3000, kKeys = 64;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> bad{0};
  std::thread reader([&] {
    std::mt19937_64 rng(7);
    while (!done.load(std::memory_order_acquire)) {
      const std::vector<SequenceNumber> seqs = f.Versions(NumberKey(rng() % kKeys));
      for (size_t i = 1; i < seqs.size(); ++i) {
        if (seqs[i] >= seqs[i - 1]) bad.fetch_add(1, std::memory_order_relaxed);
      }
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      for (int i = 0; i < kPerThread; ++i) {
        // A sequence of this thread's own: no two writers share one.
        const SequenceNumber seq = 1 + static_cast<SequenceNumber>(i) * kThreads + t;
        if (!f.Insert(NumberKey(rng() % kKeys + (i % 4 == 0 ? kKeys * (1 + i) : 0)), seq)) {
          bad.fetch_add(1, std::memory_order_relaxed);
        }
      }
    });
  }
  for (auto& w : writers) w.join();
  done.store(true, std::memory_order_release);
  reader.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_GE(f.index_.NumTables(), 5);
  // Replay each writer's draws: every version is there, in order.
  std::map<std::string, std::vector<SequenceNumber>> expected;
  for (int t = 0; t < kThreads; ++t) {
    std::mt19937_64 rng(t);
    for (int i = 0; i < kPerThread; ++i) {
      const SequenceNumber seq = 1 + static_cast<SequenceNumber>(i) * kThreads + t;
      expected[NumberKey(rng() % kKeys + (i % 4 == 0 ? kKeys * (1 + i) : 0))].push_back(seq);
    }
  }
  for (auto& [key, seqs] : expected) {
    std::sort(seqs.rbegin(), seqs.rend());
    ASSERT_EQ(f.Versions(key), seqs) << key;
  }
}

TEST(SortedHashIndex, ARepOfUnknownSizeStartsWithAFewHundredBytesOfBuckets) {
  // RocksDB's face does not know the write buffer's size: the empty rep's
  // buckets must fit the smallest memtable (64 KiB) many times over.
  memory::Arena arena;
  RepContext context;
  context.allocator = &arena;
  context.rows = true;
  std::unique_ptr<Rep> rep;
  ASSERT_TRUE(SortedHashRep::Make(SortedHashOptions{}, context, &rep).ok());
  auto& sorted_hash = static_cast<SortedHashRep&>(*rep);
  EXPECT_EQ(sorted_hash.BucketBytes(), HashTable::BytesFor(HashIndex::kFirstBuckets, false));
  EXPECT_EQ(sorted_hash.NodeBytes(), 0u);
  EXPECT_LE(rep->MemoryUsage(), size_t{1024});
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(rep->Insert(testing::MakeEntry(rep.get(), NumberKey(i), 1, 1, "value")));
  }
  EXPECT_GT(sorted_hash.NumIndexTables(), 1);
  for (int i = 0; i < 20000; i += 37) {
    EXPECT_TRUE(rep->Contains(InternalKey(NumberKey(i), 1))) << i;
  }
}

TEST(SortedHashIndex, ACoverHoldsEveryOlderKeyAndRulesOutTheRest) {
  for (const auto& counts : {std::pair<uint64_t, uint64_t>{64, 512}, {100, 333}}) {
    IndexFixture f(counts.first, counts.first, 64);
    memory::Arena arena;
    HashTable newer(counts.second, &f.region_, /*with_older=*/true);
    ASSERT_TRUE(newer.Init(&arena).ok());
    const int keys = static_cast<int>(counts.first * 4);
    for (int i = 0; i < keys; ++i) ASSERT_TRUE(f.Insert(NumberKey(i), 1));
    newer.Cover(f.index_.TableForTest(0));
    auto may_hold = [&](const std::string& key) { return newer.MayBeOlder(util::Hash(key)); };
    for (int i = 0; i < keys; ++i) ASSERT_TRUE(may_hold(NumberKey(i))) << i;
    int ruled_out = 0;
    for (int i = keys; i < keys + 10000; ++i) ruled_out += !may_hold(NumberKey(i));
    // Four to ten keys an older word (two bits each of 64): 91-98% of
    // absent keys are ruled out.
    EXPECT_GT(ruled_out, 8500) << counts.first << " -> " << counts.second;
  }
}

TEST(SortedHashIndex, AKeyLinkedIntoAnOlderTableAfterTheCoverIsFound) {
  // Writers that loaded the table count before a growth link new keys into
  // the table they saw as newest, after the grower copied its summary. Each
  // must put its key into the newer tables' summary (with the split mark),
  // or a lookup and a duplicate check trusting the newest table miss it.
  IndexFixture f(/*first=*/4, /*max=*/1 << 20, /*bytes_per_bucket=*/64);
  for (int i = 0; f.index_.NumTables() < 3; ++i) ASSERT_TRUE(f.Insert(NumberKey(i), 1));
  for (int i = 0; i < 300; ++i) {
    const std::string key = "late" + std::to_string(i);
    ASSERT_TRUE(f.Insert(key, 5, /*tables=*/1 + i % 2));
    ASSERT_EQ(f.Versions(key), std::vector<SequenceNumber>{5}) << key;
    ASSERT_FALSE(f.Insert(key, 5)) << key << ": a duplicate";
    ASSERT_TRUE(f.Insert(key, 6)) << key;
    ASSERT_EQ(f.Versions(key), (std::vector<SequenceNumber>{6, 5})) << key;
  }
}

TEST(SortedHashIndex, AnIndexOfManyTablesFindsEveryKeyAndNoAbsentOne) {
  IndexFixture f(/*first=*/1, /*max=*/1 << 20, /*bytes_per_bucket=*/16);
  constexpr int kKeys = 30000;
  for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(f.Insert(NumberKey(i * 7 % kKeys), 1 + i % 5));
  ASSERT_GE(f.index_.NumTables(), 5);
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_EQ(f.Versions(NumberKey(i * 7 % kKeys)).size(), 1u) << i;
    ASSERT_FALSE(f.Insert(NumberKey(i * 7 % kKeys), 1 + i % 5)) << i;
  }
  for (int i = kKeys; i < kKeys + 1000; ++i) ASSERT_TRUE(f.Versions(NumberKey(i)).empty());
}

}  // namespace
}  // namespace memrep::sorted_hash
