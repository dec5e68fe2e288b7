// Behaviour particular to the columnar rep: its ordered reads from the
// shared sorted runs, its link queue, its index's overflow buckets and its
// sizing. What every rep does is in rep_conformance_test.cc, which runs it
// too.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "columnar/columnar_rep.h"
#include "concurrency/background_pool.h"
#include "format/key_order.h"
#include "memory/arena.h"
#include "test_util.h"

namespace memrep::columnar {
namespace {

using testing::NumberKey;

std::unique_ptr<ColumnarRep> Make(const ColumnarOptions& options, memory::Arena* arena,
                                  const UserKeyComparator* comparator = nullptr) {
  RepContext context;
  context.allocator = arena;
  context.comparator = comparator;
  return testing::MakeRepAs<ColumnarRep>(options, context);
}

template <typename Pred>
bool WaitFor(Pred pred) {
  return testing::WaitUntil([&] {
    concurrency::BackgroundPool::Shared().Drain();
    return pred();
  });
}

// Every entry of the rep, in iteration order, as "key@seq".
std::vector<std::string> Scan(const Rep& rep) {
  std::vector<std::string> out;
  auto it = rep.NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const EntryView e = it->entry();
    out.push_back(std::string(e.user_key) + "@" + std::to_string(e.sequence()));
  }
  EXPECT_TRUE(it->status().ok());
  return out;
}

// Keys whose first 8 bytes often tie (a few shared prefixes, then random
// bytes), several versions each, in random order: the runs' prefix
// comparisons and the full comparisons that break their ties both have
// work.
struct Workload {
  std::vector<std::pair<std::string, SequenceNumber>> records;
  explicit Workload(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::vector<std::string> prefixes = {"", "user", "user0000", "user00001234", "z"};
    for (size_t i = 0; i < n; ++i) {
      std::string key = prefixes[rng() % prefixes.size()];
      const size_t tail = rng() % 6;
      for (size_t j = 0; j < tail; ++j) key.push_back(static_cast<char>('a' + rng() % 3));
      records.emplace_back(std::move(key), SequenceNumber{i + 1});
    }
  }
};

void ExpectSortedLikeTheModel(const UserKeyComparator* comparator) {
  memory::Arena arena;
  ColumnarOptions o;
  o.block_size = 1024;  // background cuts every 1024 entries
  o.max_sorted_blocks = 2;
  auto rep = Make(o, &arena, comparator);
  const format::KeyOrder order(comparator);
  Workload w(20000, 7);
  auto less = [&](const std::pair<std::string, SequenceNumber>& a,
                  const std::pair<std::string, SequenceNumber>& b) {
    const int c = order.CompareUserKeys(a.first, b.first);
    return c != 0 ? c < 0 : a.second > b.second;
  };
  std::vector<std::pair<std::string, SequenceNumber>> model = w.records;
  std::sort(model.begin(), model.end(), less);
  std::vector<std::string> expected;
  for (const auto& [k, s] : model) expected.push_back(k + "@" + std::to_string(s));
  for (const auto& [k, s] : w.records) {
    ASSERT_TRUE(rep->Add(EntryView::Of(k, s, ValueType::kValue, "v"), false).ok());
  }
  // While writes go on (runs, merges, a tail of the newest), then frozen (one run).
  EXPECT_EQ(Scan(*rep), expected);
  rep->Freeze();
  ASSERT_TRUE(WaitFor([&] { return rep->NumRuns() == 1; }));
  EXPECT_EQ(Scan(*rep), expected);
}

TEST(Columnar, OrderedReadsMatchAComparisonSortBytewise) { ExpectSortedLikeTheModel(nullptr); }

TEST(Columnar, OrderedReadsMatchAComparisonSortReverse) {
  ExpectSortedLikeTheModel(ReverseBytewiseComparator());
}

TEST(Columnar, SortedRunsStayBoundedAndBecomeOneOnceWritesStop) {
  memory::Arena arena;
  ColumnarOptions o;
  o.block_size = 256;
  o.max_sorted_blocks = 3;
  auto rep = Make(o, &arena);
  for (int i = 0; i < 50000; ++i) {
    ASSERT_TRUE(
        rep->Add(EntryView::Of(NumberKey(uint64_t(i) * 7919 % 50000), 1, ValueType::kValue, "v"),
                 false)
            .ok());
  }
  // Every background cut is sorted and merged within the bound.
  ASSERT_TRUE(WaitFor([&] { return rep->NumRuns() >= 1 && rep->NumRuns() <= 3; }));
  // No more writes: the runs become one that holds every entry (a 4-byte
  // reference each), frozen or not. (One run alone may still leave rows
  // of the last cut for the strand's next look: a slow build sees that.)
  ASSERT_TRUE(WaitFor([&] { return rep->NumRuns() == 1 && rep->RunBytes() >= 4 * size_t{50000}; }));
  const size_t at_freeze = rep->MemoryUsage();
  rep->Freeze();
  ASSERT_TRUE(WaitFor([&] { return rep->NumRuns() == 1; }));
  EXPECT_LE(rep->MemoryUsage(), at_freeze);
  EXPECT_EQ(Scan(*rep).size(), 50000u);
}

// The sequences Get visits for `key` at snapshot `snapshot`, in its order.
std::vector<SequenceNumber> Versions(const Rep& rep, std::string_view key,
                                     SequenceNumber snapshot) {
  std::vector<SequenceNumber> seen;
  rep.Get(testing::InternalKey(key, snapshot), &seen, [](void* arg, const EntryView& e) {
    static_cast<std::vector<SequenceNumber>*>(arg)->push_back(e.sequence());
    return true;
  });
  return seen;
}

// A writer queues its newest entries and links them into the index
// LinkQueue::kDepth inserts later (link_queue.h): a key's versions are split
// between the queue and the index in every way, in any sequence order, and
// Get must still visit them all, newest first, from its snapshot.
TEST(Columnar, VersionsInTheLinkQueueAndTheIndexMergeNewestFirst) {
  memory::Arena arena;
  ColumnarOptions o;
  o.shards = 1;  // one queue: which versions are queued follows from the order
  auto rep = Make(o, &arena);
  std::mt19937_64 rng(11);
  std::vector<SequenceNumber> seqs(60);
  for (size_t i = 0; i < seqs.size(); ++i) seqs[i] = 10 * (i + 1);
  std::shuffle(seqs.begin(), seqs.end(), rng);
  std::vector<SequenceNumber> stored;  // of "k", newest first
  size_t next = 0, others = 0;
  while (next < seqs.size()) {
    // Runs of "k" (several versions queued at once) and of other keys
    // (which push k's versions into the index).
    const bool k = rng() % 2 == 0;
    for (uint64_t run = 1 + rng() % 10; run > 0 && next < seqs.size(); --run) {
      if (k) {
        const SequenceNumber s = seqs[next++];
        ASSERT_TRUE(rep->Add(EntryView::Of("k", s, ValueType::kValue, "v"), false).ok());
        stored.insert(std::upper_bound(stored.begin(), stored.end(), s, std::greater<>()), s);
      } else {
        ASSERT_TRUE(
            rep->Add(EntryView::Of(NumberKey(others), 1 + others, ValueType::kValue, "o"), false)
                .ok());
        ++others;
      }
      ASSERT_EQ(Versions(*rep, "k", kMaxSequenceNumber), stored);
      // From a snapshot in the middle: only the versions at or below it.
      const SequenceNumber snapshot = stored[stored.size() / 2];
      std::vector<SequenceNumber> expected(stored.begin() + stored.size() / 2, stored.end());
      ASSERT_EQ(Versions(*rep, "k", snapshot), expected);
    }
  }
  rep->Freeze();  // the queue stays as it is (no link may allocate now)
  EXPECT_EQ(Versions(*rep, "k", kMaxSequenceNumber), stored);
  for (size_t i = 0; i < others; ++i) {
    ASSERT_EQ(Versions(*rep, NumberKey(i), kMaxSequenceNumber), std::vector<SequenceNumber>{1 + i});
  }
}

// Point reads while writers insert: every insert that returned before a
// read began is found by it (from a queue or from the index), whatever the
// moment its entry moves from one to the other.
TEST(Columnar, AReadFindsEveryInsertThatReturned) {
  memory::Arena arena;
  ColumnarOptions o;
  o.shards = 2;
  o.block_size = 64;  // background cuts meanwhile
  auto rep = Make(o, &arena);
  constexpr int kWriters = 2, kPerWriter = 20000;
  std::atomic<int> done[kWriters] = {};
  std::atomic<bool> stop{false};
  std::atomic<int> misses{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kPerWriter; ++i) {
        const std::string key = NumberKey(uint64_t(w) * kPerWriter + i);
        if (!rep->Add(EntryView::Of(key, 1 + i, ValueType::kValue, "v"), true).ok()) ++misses;
        done[w].store(i + 1, std::memory_order_release);  // the insert returned
      }
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937_64 rng(r);
      while (!stop.load(std::memory_order_relaxed)) {
        const int w = int(rng() % kWriters);
        const int n = done[w].load(std::memory_order_acquire);
        if (n == 0) continue;
        // The newest few (still queued) as often as any older one.
        const int i = rng() % 2 == 0 ? n - 1 - int(rng() % std::min(n, 12)) : int(rng() % n);
        const std::string key = NumberKey(uint64_t(w) * kPerWriter + i);
        if (Versions(*rep, key, kMaxSequenceNumber) !=
            std::vector<SequenceNumber>{SequenceNumber(1 + i)}) {
          ++misses;
        }
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  stop = true;
  for (size_t t = kWriters; t < threads.size(); ++t) threads[t].join();
  EXPECT_EQ(misses.load(), 0);
  EXPECT_EQ(rep->NumEntries(), uint64_t{kWriters} * kPerWriter);
}

TEST(Columnar, OneBucketOverflowsAndStillFindsEveryVersion) {
  memory::Arena arena;
  ColumnarOptions o;
  o.bucket_count = 1;
  auto rep = Make(o, &arena);
  for (int i = 0; i < 3000; ++i) {
    for (SequenceNumber s = 1; s <= 2; ++s) {
      ASSERT_TRUE(
          rep->Add(EntryView::Of(NumberKey(i), s, ValueType::kValue, std::to_string(s)), false)
              .ok());
    }
  }
  EXPECT_GE(rep->OverflowBuckets(), 3000u / ColumnTable::kSlots - 1);
  for (int i = 0; i < 3000; ++i) {
    std::string lookup;
    AppendInternalKey(&lookup, NumberKey(i), 1, static_cast<uint8_t>(ValueType::kForSeek));
    std::vector<std::string> seen;
    rep->Get(lookup, &seen, [](void* arg, const EntryView& e) {
      static_cast<std::vector<std::string>*>(arg)->push_back(std::string(e.value));
      return true;
    });
    ASSERT_EQ(seen, std::vector<std::string>{"1"}) << i;  // snapshot 1: the older version only
  }
}

TEST(Columnar, SizesFollowTheWriteBufferAndTheOptions) {
  ColumnarOptions o;
  EXPECT_EQ(EffectiveBucketCount(o, uint64_t{64} << 20), (uint64_t{64} << 20) / 1280);
  EXPECT_EQ(EffectiveBucketCount(o, 4096), ColumnarOptions::kMinAutoBuckets);
  o.bucket_count = 1000;  // as given: the index takes any count
  EXPECT_EQ(EffectiveBucketCount(o, uint64_t{64} << 20), 1000u);
  // block_size is the runs' background cut; max_sorted_blocks their bound.
  EXPECT_EQ(RunOptionsOf(o).background_cut, runs::RunIndexOptions{}.background_cut);
  o.block_size = 1000;
  o.max_sorted_blocks = 5;
  EXPECT_EQ(RunOptionsOf(o).background_cut, 1000u);
  EXPECT_EQ(RunOptionsOf(o).max_runs, 5u);
  EXPECT_TRUE(RunOptionsOf(o).seek_merges);
  o.seek_merges = false;
  EXPECT_FALSE(RunOptionsOf(o).seek_merges);
  // A rep of a known size takes the count it is given; of an unknown size
  // it starts small and grows to it (ColumnIndex).
  memory::Arena arena;
  o.bucket_count = 777;
  o.write_buffer_size = uint64_t{64} << 20;
  EXPECT_EQ(Make(o, &arena)->IndexBytes(), 777 * sizeof(ColumnTable::Bucket));  // one table
  o.write_buffer_size = 0;
  auto rep = Make(o, &arena);
  EXPECT_EQ(rep->IndexBytes(), ColumnIndex::kFirstBuckets * sizeof(ColumnTable::Bucket));
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(rep->Add(EntryView::Of(NumberKey(i), 1, ValueType::kValue, "v"), false).ok());
  }
  EXPECT_GT(rep->NumIndexTables(), 1);
  EXPECT_LE(rep->IndexBytes(), (8 + 32 + 128 + 512 + 777) * ColumnTable::kBytesPerBucket);
}

TEST(Columnar, OptionsOutOfRangeAreRefusedWithTheirRange) {
  ColumnarOptions o;
  o.shards = 0;
  Status s = o.Validate();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("shards"), std::string::npos) << s.ToString();
  o.shards = 4;
  o.block_size = 8;
  s = o.Validate();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("block_size"), std::string::npos) << s.ToString();
  o.block_size = 0;
  EXPECT_TRUE(o.Validate().ok());
  EXPECT_NE(o.Spec().find("id=memrep.Columnar;"), std::string::npos) << o.Spec();
}

// A rep destroyed right after Freeze, while its final sort and merges are
// queued or running: the destructor cancels them and waits for the running
// one, so once it returns nothing reads the rep's blocks. The arena is freed
// at once: a task that still read a block would be a use after free, which
// the ASan lane reports (and a hang, the ctest timeout).
TEST(Columnar, DestroyingARepDuringItsFinalMergeLeavesNothingRunning) {
  auto arena = std::make_unique<memory::Arena>();
  ColumnarOptions o;
  o.block_size = 256;
  o.max_sorted_blocks = 64;
  auto rep = Make(o, arena.get());
  for (int i = 0; i < 200000; ++i) {
    ASSERT_TRUE(
        rep->Add(EntryView::Of(NumberKey(uint64_t(i) * 7919 % 200000), 1, ValueType::kValue, ""),
                 false)
            .ok());
  }
  rep->Freeze();
  rep.reset();
  arena.reset();
  concurrency::BackgroundPool::Shared().Drain();  // queued tasks run, and return at once
}

// In the RocksDB face a row lives in the node Allocate handed out, and the
// index (Gets) and the sorted runs (iterators) both name that node: every
// read returns the very row RocksDB wrote (rows are pinned), and a refused
// duplicate is in neither.
TEST(Columnar, GetsAndIteratorsReturnTheRowAllocateHandedOut) {
  memory::Arena arena;
  RepContext context;
  context.allocator = &arena;
  context.rows = true;
  std::unique_ptr<Rep> rep;
  ASSERT_TRUE(ColumnarRep::Make(ColumnarOptions{}, context, &rep).ok());
  std::map<std::string, const char*> rows;  // user key -> its row
  const auto put = [&](const std::string& key, SequenceNumber seq) {
    const std::string value = "value of " + key;  // outlives the view of it
    const EntryView e = EntryView::Of(key, seq, ValueType::kValue, value);
    KeyHandle handle;
    char* row;
    EXPECT_TRUE(rep->Allocate(RowSize(e.user_key.size(), e.value.size()), &handle, &row).ok());
    EncodeRow(row, e);
    const bool stored = rep->InsertConcurrently(handle);
    if (stored) rows[key] = row;
    return stored;
  };
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(put(NumberKey(i), 10));
  // The same key at the same sequence from the same thread: RocksDB's kind of
  // duplicate, refused (and retried by RocksDB at a new sequence).
  EXPECT_FALSE(put(NumberKey(99), 10));
  EXPECT_EQ(rep->NumEntries(), 100u);
  for (const auto& [key, row] : rows) {
    const char* found = nullptr;
    rep->GetRows(testing::InternalKey(key, kMaxSequenceNumber), &found,
                 [](void* arg, const char* r) {
                   *static_cast<const char**>(arg) = r;
                   return false;
                 });
    EXPECT_EQ(found, row) << key;
  }
  auto it = rep->NewIterator();
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    const EntryView e = it->entry();
    EXPECT_EQ(it->row(), rows.at(std::string(e.user_key)));
  }
  EXPECT_EQ(n, 100u);
}

// A batch stops at its first refused record: the records before it are
// stored (queued for the index, and pushed on the write list together),
// and both Gets and iterators see exactly them.
TEST(Columnar, ABatchStopsAtADuplicateAndKeepsTheRecordsBeforeIt) {
  memory::Arena arena;
  auto rep = Make(ColumnarOptions{}, &arena);
  const std::vector<EntryView> batch = {
      EntryView::Of("a", 5, ValueType::kValue, "1"), EntryView::Of("b", 5, ValueType::kValue, "2"),
      EntryView::Of("a", 5, ValueType::kValue, "3"), EntryView::Of("c", 5, ValueType::kValue, "4")};
  EXPECT_FALSE(rep->AddBatch(batch, /*concurrent=*/false).ok());
  EXPECT_EQ(rep->NumEntries(), 2u);
  EXPECT_EQ(Scan(*rep), (std::vector<std::string>{"a@5", "b@5"}));
  EXPECT_EQ(Versions(*rep, "a", kMaxSequenceNumber), std::vector<SequenceNumber>{5});
  EXPECT_EQ(Versions(*rep, "b", kMaxSequenceNumber), std::vector<SequenceNumber>{5});
  EXPECT_TRUE(Versions(*rep, "c", kMaxSequenceNumber).empty());
}

// Overflow buckets are carved from the row region (the Allocator sees only
// its chunks), and once frozen the memory charged stays as it is while the
// strand sorts everything into one run.
TEST(Columnar, OverflowBucketsComeFromTheRowRegionAndMemoryStopsAtFreeze) {
  memory::Arena arena;
  ColumnarOptions o;
  o.bucket_count = 4;
  auto rep = Make(o, &arena);
  // Four chains of about kKeys / 4 keys, ColumnTable::kSlots a bucket: over a
  // hundred overflow buckets a chain (each insert walks its chain, so the cost
  // grows with the square of kKeys; a sanitizer lane runs this too).
  constexpr int kKeys = 6000;
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(rep->Add(EntryView::Of(NumberKey(i), 1, ValueType::kValue, ""), false).ok());
  }
  EXPECT_GE(rep->OverflowBuckets(), uint64_t{kKeys} / ColumnTable::kSlots - 4);
  EXPECT_GE(rep->NodeBytes(), rep->OverflowBuckets() * sizeof(ColumnTable::Bucket));
  rep->Freeze();
  const size_t at_freeze = rep->MemoryUsage();
  ASSERT_TRUE(WaitFor([&] { return rep->NumRuns() == 1; }));
  EXPECT_EQ(rep->MemoryUsage(), at_freeze);
  for (int i = 0; i < kKeys; i += 97) {
    ASSERT_EQ(Versions(*rep, NumberKey(i), kMaxSequenceNumber), std::vector<SequenceNumber>{1});
  }
  EXPECT_EQ(Scan(*rep).size(), size_t{kKeys});
}

// Writers that share two buckets race on every slot claim, on every
// overflow link (a loser keeps its bucket for its next overflow) and on
// version links, while readers look keys up meanwhile (some slots still
// without their fingerprint): every version stays findable, newest first.
TEST(Columnar, WritersRacingOnTwoBucketsLoseNoVersion) {
  memory::Arena arena;
  ColumnarOptions o;
  o.bucket_count = 2;
  o.shards = 4;
  auto rep = Make(o, &arena);
  constexpr int kWriters = 4, kKeys = 1500;
  std::atomic<bool> stop{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      // Every writer writes every key, at sequences of its own: versions of
      // one key arrive from several threads at once.
      for (int i = 0; i < kKeys; ++i) {
        const SequenceNumber seq = 1 + SequenceNumber(i) * kWriters + w;
        if (!rep->Add(EntryView::Of(NumberKey(i), seq, ValueType::kValue, "v"), true).ok()) {
          ++errors;
        }
      }
    });
  }
  threads.emplace_back([&] {
    std::mt19937_64 rng(3);
    while (!stop.load(std::memory_order_relaxed)) {
      const std::vector<SequenceNumber> seen =
          Versions(*rep, NumberKey(rng() % kKeys), kMaxSequenceNumber);
      if (!std::is_sorted(seen.begin(), seen.end(), std::greater<>())) ++errors;
    }
  });
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  stop = true;
  threads.back().join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(rep->OverflowBuckets(), 0u);
  for (int i = 0; i < kKeys; ++i) {
    std::vector<SequenceNumber> expected;
    for (int w = kWriters - 1; w >= 0; --w)
      expected.push_back(1 + SequenceNumber(i) * kWriters + w);
    ASSERT_EQ(Versions(*rep, NumberKey(i), kMaxSequenceNumber), expected) << i;
  }
  EXPECT_EQ(Scan(*rep).size(), size_t{kWriters} * kKeys);
}

}  // namespace
}  // namespace memrep::columnar
