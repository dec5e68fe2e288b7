#include "runs/sorted_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>

#include "concurrency/background_pool.h"
#include "memory/arena.h"
#include "runs/merging_cursor.h"
#include "runs/run_index.h"
#include "runs/run_set.h"
#include "test_util.h"

namespace memrep::runs {
namespace {

class SortedRunTest : public ::testing::Test {
 protected:
  SortedRunTest() { EXPECT_TRUE(region_.Init().ok()); }
  // A row written into the region, and its slot (whose ref names its node).
  RunSlot Slot(const std::string& key, SequenceNumber seq) {
    RowRef ref;
    EXPECT_TRUE(region_.Allocate(RowSize(key.size(), 1), &ref).ok());
    EncodeRow(region_.Row(ref), EntryView{key, PackTag(seq, 1), "v"});
    return MakeSlot(order_, region_, ref);
  }
  memory::Arena arena_;
  // Nodes with a 4-byte header, as a RunIndex's (its write-list link).
  RowRegion region_{&arena_, 4096, 4};
  format::KeyOrder order_{nullptr};
  MemoryCounter memory_ = std::make_shared<std::atomic<int64_t>>(0);
};

// Runs of both layouts must search, merge and iterate alike.
class SortedRunLayoutTest : public SortedRunTest,
                            public ::testing::WithParamInterface<SortedRun::Layout> {
 protected:
  SortedRun::Layout layout() const { return GetParam(); }
  // Each source sorted into a run of this layout, and `all` sorted: the one
  // array that a merging cursor over those runs must walk.
  std::vector<std::unique_ptr<SortedRun>> RunsOf(std::vector<std::vector<RunSlot>>* sources,
                                                 std::vector<RunSlot>* all) {
    std::vector<std::unique_ptr<SortedRun>> runs;
    for (auto& s : *sources) {
      SortSlots(order_, &s);
      runs.push_back(std::make_unique<SortedRun>(&region_, s, memory_, layout()));
    }
    SortSlots(order_, all);
    return runs;
  }
  size_t MaxBytesPerEntry() const {
    return layout() == SortedRun::Layout::kFenced ? SortedRun::kMaxBytesPerEntry
                                                  : SortedRun::kBytesPerEntryWithPrefixes;
  }
};

INSTANTIATE_TEST_SUITE_P(Layouts, SortedRunLayoutTest,
                         ::testing::Values(SortedRun::Layout::kFenced,
                                           SortedRun::Layout::kWithPrefixes),
                         [](const auto& info) {
                           return info.param == SortedRun::Layout::kFenced ? "Fenced"
                                                                           : "WithPrefixes";
                         });

TEST_F(SortedRunTest, KeysSharingAPrefixAreOrderedByFullKey) {
  // Same first 8 bytes: the prefix ties and the full comparison decides.
  std::vector<RunSlot> slots;
  for (const char* k : {"prefix00-c", "prefix00-a", "prefix00", "prefix00-b"}) {
    slots.push_back(Slot(k, 1));
  }
  SortSlots(order_, &slots);
  std::vector<std::string> keys;
  for (const RunSlot& s : slots) keys.emplace_back(DecodeRow(s.row).user_key);
  EXPECT_EQ(keys, (std::vector<std::string>{"prefix00", "prefix00-a", "prefix00-b", "prefix00-c"}));
}

TEST_P(SortedRunLayoutTest, MergeInterleavesAndCountsMemory) {
  std::vector<RunSlot> even, odd;
  for (int i = 0; i < 100; ++i) {
    (i % 2 ? odd : even).push_back(Slot(testing::NumberKey(i), 1));
  }
  {
    auto a = std::make_shared<const SortedRun>(&region_, even, memory_, layout());
    auto b = std::make_shared<const SortedRun>(&region_, odd, memory_, layout());
    EXPECT_EQ(memory_->load(), static_cast<int64_t>(a->bytes() + b->bytes()));
    auto m = SortedRun::Merge(order_, *a, *b, memory_, layout());
    ASSERT_EQ(m->size(), 100u);
    for (int i = 0; i < 100; ++i) {
      EXPECT_EQ(DecodeRow(m->row(i)).user_key, testing::NumberKey(i));
    }
    EXPECT_LE(m->bytes(), 100 * MaxBytesPerEntry() + 8);
    // The merged run's fences or prefixes work: every key is found where it is.
    for (int i = 0; i < 100; ++i) {
      const std::string key = testing::InternalKey(testing::NumberKey(i), kMaxSequenceNumber);
      EXPECT_EQ(m->LowerBound(order_, Target(order_, key)), static_cast<size_t>(i));
    }
  }
  EXPECT_EQ(memory_->load(), 0) << "destroyed runs give their bytes back";
}

TEST_P(SortedRunLayoutTest, ARunWithNoCounterSearchesAndMergesAndCountsNowhere) {
  // A reader's private level is built with no counter: it must work as any
  // run, a merge of it into a counted run must count only the result, and
  // building or destroying it must touch no counter.
  std::vector<RunSlot> even, odd;
  for (int i = 0; i < 40; ++i) (i % 2 ? odd : even).push_back(Slot(testing::NumberKey(i), 1));
  {
    auto own = std::make_shared<const SortedRun>(&region_, even, nullptr, layout());
    auto counted = std::make_shared<const SortedRun>(&region_, odd, memory_, layout());
    EXPECT_EQ(memory_->load(), static_cast<int64_t>(counted->bytes())) << "the private run counted";
    for (int i = 0; i < 40; i += 2) {
      const std::string key = testing::InternalKey(testing::NumberKey(i), kMaxSequenceNumber);
      EXPECT_EQ(own->LowerBound(order_, Target(order_, key)), static_cast<size_t>(i / 2));
    }
    auto merged = SortedRun::Merge(order_, *own, *counted, memory_, layout());
    ASSERT_EQ(merged->size(), 40u);
    EXPECT_EQ(memory_->load(), static_cast<int64_t>(counted->bytes() + merged->bytes()));
    own.reset();
    EXPECT_EQ(memory_->load(), static_cast<int64_t>(counted->bytes() + merged->bytes()))
        << "destroying the private run gave back bytes it never took";
  }
  EXPECT_EQ(memory_->load(), 0);
}

TEST_P(SortedRunLayoutTest, BoundsInWideRangesOfOnePrefixMatchABinarySearch) {
  // Wide ranges of one prefix: 300 versions of a hot key among cold keys,
  // and 200 distinct keys sharing their first 8 bytes (two versions each).
  // Every bound, at every sequence number around them, must be the one a
  // plain search of the sorted rows gives, whatever way Bound probes.
  std::vector<RunSlot> slots;
  for (int k = 0; k < 40; ++k) {
    const std::string key = testing::NumberKey(k);
    const int versions = k == 17 ? 300 : 3;
    for (int v = 1; v <= versions; ++v) slots.push_back(Slot(key, 10 * v));
  }
  for (int k = 0; k < 200; ++k) {
    const std::string key = "shared8b" + testing::NumberKey(k);
    for (int v = 1; v <= 2; ++v) slots.push_back(Slot(key, 10 * v));
  }
  SortSlots(order_, &slots);
  const SortedRun run(&region_, slots, memory_, layout());
  std::vector<std::string> targets;
  for (int k : {0, 16, 17, 18, 39}) {
    for (SequenceNumber seq : {SequenceNumber{0}, SequenceNumber{5}, SequenceNumber{10},
                               SequenceNumber{15}, SequenceNumber{1500}, SequenceNumber{2995},
                               SequenceNumber{3000}, SequenceNumber{3001}, kMaxSequenceNumber}) {
      targets.push_back(testing::InternalKey(testing::NumberKey(k), seq));
    }
  }
  for (int k : {0, 1, 99, 100, 198, 199, 200}) {
    for (SequenceNumber seq :
         {SequenceNumber{5}, SequenceNumber{10}, SequenceNumber{20}, kMaxSequenceNumber}) {
      targets.push_back(testing::InternalKey("shared8b" + testing::NumberKey(k), seq));
    }
  }
  targets.push_back(testing::InternalKey("shared8a", kMaxSequenceNumber));
  targets.push_back(testing::InternalKey("shared8c", 0));
  for (const std::string& key : targets) {
    const Target t(order_, key);
    size_t lower = 0, upper = 0;
    for (size_t i = 0; i < slots.size(); ++i) {
      const int c = order_.CompareRowToKey(slots[i].row, key);
      lower += c < 0 ? 1 : 0;
      upper += c <= 0 ? 1 : 0;
    }
    uint64_t tag;
    const std::string user(format::RowUserKey(slots[std::min(lower, slots.size() - 1)].row, &tag));
    EXPECT_EQ(run.LowerBound(order_, t), lower) << "near " << user;
    EXPECT_EQ(run.UpperBound(order_, t), upper) << "near " << user;
  }
}

TEST_P(SortedRunLayoutTest, BoundsFindTheRightSlots) {
  std::vector<RunSlot> slots;
  for (int i = 0; i < 50; ++i) {
    slots.push_back(Slot(testing::NumberKey(i / 5), 10 - i % 5));
  }
  SortSlots(order_, &slots);
  const SortedRun run(&region_, slots, memory_, layout());
  // key 3 has versions 10..6 at slots 15..19; a seek at snapshot 8 lands on seq 8.
  const std::string target = testing::InternalKey(testing::NumberKey(3), 8);
  const Target t(order_, target);
  EXPECT_EQ(run.LowerBound(order_, t), 17u);
  EXPECT_EQ(run.UpperBound(order_, t), 18u);
  // Target views its key: the key must outlive it.
  const std::string past_key = testing::InternalKey("z", 1);
  const Target past(order_, past_key);
  EXPECT_EQ(run.LowerBound(order_, past), 50u);
  EXPECT_EQ(run.UpperBound(order_, past), 50u);
  const std::string before_key = testing::InternalKey("a", 1);
  const Target before(order_, before_key);
  EXPECT_EQ(run.LowerBound(order_, before), 0u);
  EXPECT_EQ(run.UpperBound(order_, before), 0u);
}

TEST_P(SortedRunLayoutTest, BoundsAgreeWithAPlainSearchWhenPrefixesRepeat) {
  // Many keys share their first 8 bytes, some do not: the fences narrow the
  // search only as far as is safe.
  std::mt19937 rng(7);
  std::vector<RunSlot> slots;
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) {
    std::string key = (rng() % 3 == 0 ? "samepref" : "p" + std::to_string(rng() % 50)) +
                      std::to_string(rng() % 100000);
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    keys.push_back(key);
    slots.push_back(Slot(key, 1));
  }
  SortSlots(order_, &slots);
  const SortedRun run(&region_, slots, memory_, layout());
  for (int i = 0; i < 3000; ++i) {
    std::string key = (rng() % 2 ? "samepref" : "p" + std::to_string(rng() % 60)) +
                      std::to_string(rng() % 100000);
    const std::string ikey = testing::InternalKey(key, rng() % 3);
    const Target t(order_, ikey);
    size_t expected_lower = 0, expected_upper = 0;
    for (const RunSlot& s : slots) {
      if (order_.CompareRowToKey(s.row, ikey) < 0) ++expected_lower;
      if (order_.CompareRowToKey(s.row, ikey) <= 0) ++expected_upper;
    }
    ASSERT_EQ(run.LowerBound(order_, t), expected_lower) << key;
    ASSERT_EQ(run.UpperBound(order_, t), expected_upper) << key;
  }
}

TEST_P(SortedRunLayoutTest, MergingCursorOverManySourcesMatchesOneSortedArray) {
  std::mt19937 rng(1);
  std::vector<std::vector<RunSlot>> sources(5);
  std::vector<RunSlot> all;
  for (int i = 0; i < 5000; ++i) {
    RunSlot s = Slot(testing::NumberKey(rng() % 1000000), i);
    sources[rng() % 5].push_back(s);
    all.push_back(s);
  }
  const std::vector<std::unique_ptr<SortedRun>> runs = RunsOf(&sources, &all);
  MergingCursor cursor(order_);
  for (auto& r : runs) cursor.AddSource(r.get());
  size_t i = 0;
  for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) ASSERT_EQ(cursor.row(), all[i++].row);
  EXPECT_EQ(i, all.size());
  // Seek and SeekForPrev (searched step by step across the sources) land
  // where a search of the one sorted array does, for keys present and absent.
  for (int k = 0; k < 300; ++k) {
    const std::string key = testing::InternalKey(testing::NumberKey(rng() % 1000000), rng() % 600);
    size_t lower = 0, upper = 0;
    for (const RunSlot& s : all) {
      if (order_.CompareRowToKey(s.row, key) < 0) ++lower;
      if (order_.CompareRowToKey(s.row, key) <= 0) ++upper;
    }
    cursor.Seek(key);
    ASSERT_EQ(cursor.Valid(), lower < all.size());
    if (lower < all.size()) {
      ASSERT_EQ(cursor.row(), all[lower].row);
    }
    cursor.SeekForPrev(key);
    ASSERT_EQ(cursor.Valid(), upper > 0);
    if (upper > 0) {
      ASSERT_EQ(cursor.row(), all[upper - 1].row);
    }
  }
  // Zig-zag: Next then Prev returns to the same entry at every position.
  cursor.SeekToFirst();
  for (size_t j = 0; j + 1 < all.size(); ++j) {
    cursor.Next();
    cursor.Prev();
    ASSERT_EQ(cursor.row(), all[j].row) << j;
    cursor.Next();
  }
}

// A random walk of seeks and steps in both directions over sources that
// share a few hot keys (each source a stretch of sequence numbers, as runs
// cut one after another hold: a hot key's versions lie in every source) and
// some cold ones, against the one sorted array: the cursor's rank of the
// other sources must hand over at exactly the right entry however the steps
// turn, and sources run out in both directions.
TEST_P(SortedRunLayoutTest, MergingCursorRandomWalkOverHotKeysMatchesOneSortedArray) {
  std::mt19937 rng(7);
  constexpr int kSources = 7, kEntries = 6000;
  std::vector<std::vector<RunSlot>> sources(kSources);
  std::vector<RunSlot> all;
  for (int i = 0; i < kEntries; ++i) {
    const bool hot = rng() % 4 != 0;
    const uint64_t key = hot ? rng() % 5 : 1000 + rng() % 100000;
    RunSlot s = Slot(testing::NumberKey(key), i + 1);
    // Mostly the source of this stretch of sequence numbers, sometimes another.
    const int source = rng() % 8 == 0 ? rng() % kSources : i * kSources / kEntries;
    sources[source].push_back(s);
    all.push_back(s);
  }
  const std::vector<std::unique_ptr<SortedRun>> runs = RunsOf(&sources, &all);
  MergingCursor cursor(order_);
  for (auto& r : runs) cursor.AddSource(r.get());
  const auto n = static_cast<ptrdiff_t>(all.size());
  ptrdiff_t at = -1;  // the model: the cursor's index in `all`, -1 when not Valid
  for (int op = 0; op < 20000; ++op) {
    const unsigned what = rng() % 100;
    if (what < 3) {
      cursor.SeekToFirst();
      at = 0;
    } else if (what < 6) {
      cursor.SeekToLast();
      at = n - 1;
    } else if (what < 12) {
      // A key at or near a hot one, at a sequence inside or past its versions.
      const uint64_t key = rng() % 2 ? rng() % 6 : rng() % 102000;
      const std::string target = testing::InternalKey(testing::NumberKey(key), rng() % 7000);
      const bool for_prev = rng() % 2;
      ptrdiff_t lower = 0, upper = 0;
      for (const RunSlot& s : all) {
        if (order_.CompareRowToKey(s.row, target) < 0) ++lower;
        if (order_.CompareRowToKey(s.row, target) <= 0) ++upper;
      }
      if (for_prev) {
        cursor.SeekForPrev(target);
        at = upper - 1;
      } else {
        cursor.Seek(target);
        at = lower < n ? lower : -1;
      }
    } else if (at >= 0) {
      // Runs of steps one way, then the other.
      const bool next = (op / 37) % 2 == 0 ? what < 80 : what < 30;
      if (next) {
        cursor.Next();
        at = at + 1 < n ? at + 1 : -1;
      } else {
        cursor.Prev();
        at = at - 1;
      }
    } else {
      continue;
    }
    ASSERT_EQ(cursor.Valid(), at >= 0) << "op " << op;
    if (at >= 0) {
      ASSERT_EQ(cursor.row(), all[at].row) << "op " << op << " at " << at;
    }
  }
}

// A point filter never turns away a key its run holds, and turns away most
// keys it does not hold, whichever way the run was built (sorted slots, a
// merge of two runs, a merge of many, from runs with or without a filter).
TEST_P(SortedRunLayoutTest, APointFilterKeepsEveryKeyItHoldsAndTurnsAwayMostOthers) {
  constexpr int kKeys = 6000;
  // 8-byte keys ("k" and 7 digits): each its own prefix.
  auto key = [](int n) { return testing::NumberKey(n, 7); };
  std::vector<RunSlot> parts[3];
  for (int i = 0; i < kKeys; ++i) parts[i % 3].push_back(Slot(key(2 * i), 1));
  for (auto& p : parts) SortSlots(order_, &p);
  constexpr auto kPoint = SortedRun::Filter::kPoint;
  auto a = std::make_shared<const SortedRun>(&region_, parts[0], memory_, layout(), kPoint);
  auto b = std::make_shared<const SortedRun>(&region_, parts[1], memory_, layout());
  auto c = std::make_shared<const SortedRun>(&region_, parts[2], memory_, layout(), kPoint);
  EXPECT_TRUE(a->filtered());
  EXPECT_FALSE(b->filtered());
  auto ab = SortedRun::Merge(order_, *a, *b, memory_, layout(), nullptr, kPoint);
  auto abc =
      SortedRun::MergeAll(order_, {a.get(), b.get(), c.get()}, memory_, layout(), nullptr, kPoint);
  auto plain = SortedRun::Merge(order_, *a, *c, memory_, layout());
  ASSERT_TRUE(ab->filtered() && abc->filtered());
  EXPECT_FALSE(plain->filtered());
  // A byte an entry (rounded up to a word) more than the same run without one.
  auto abc_plain = SortedRun::MergeAll(order_, {a.get(), b.get(), c.get()}, memory_, layout());
  EXPECT_LE(abc->bytes() - abc_plain->bytes(), abc->size() + sizeof(uint64_t));
  EXPECT_GT(abc->bytes(), abc_plain->bytes());
  auto prefix_of = [&](int n) { return order_.Prefix(key(n)); };
  for (int i = 0; i < kKeys; ++i) {
    const uint64_t p = prefix_of(2 * i);
    const std::shared_ptr<const SortedRun>* holder = i % 3 == 0 ? &a : (i % 3 == 1 ? &b : &c);
    ASSERT_TRUE((*holder)->MayContain(SortedRun::FilterHash(p))) << i;
    ASSERT_TRUE(abc->MayContain(SortedRun::FilterHash(p))) << i;
    if (i % 3 != 2) {
      ASSERT_TRUE(ab->MayContain(SortedRun::FilterHash(p))) << i;
    }
    ASSERT_TRUE(plain->MayContain(SortedRun::FilterHash(p)));  // no filter: always
  }
  // Keys no run holds (the odd numbers): at 8 bits an entry and three bits
  // a key, a few percent get through.
  int passed = 0;
  for (int i = 0; i < kKeys; ++i)
    passed += abc->MayContain(SortedRun::FilterHash(prefix_of(2 * i + 1))) ? 1 : 0;
  EXPECT_LT(passed, kKeys / 10) << passed << " of " << kKeys << " absent keys passed the filter";
  // The filter keeps prefixes: a longer key that begins with a key the run
  // holds passes (the run is searched, and finds nothing).
  EXPECT_TRUE(abc->MayContain(SortedRun::FilterHash(order_.Prefix(key(2) + "-longer"))));
  // An empty run's filter is empty, and it turns nothing away.
  const SortedRun empty(&region_, std::vector<RunSlot>{}, memory_, layout(), kPoint);
  EXPECT_TRUE(empty.MayContain(SortedRun::FilterHash(prefix_of(1))));
}

TEST_F(SortedRunTest, SmallRunsKeepEveryPrefixAndBigRunsOnlyFences) {
  std::vector<RunSlot> slots;
  for (size_t i = 0; i <= SortedRun::kPrefixedRunMax; ++i) {
    slots.push_back(Slot(testing::NumberKey(i), 1));
  }
  SortSlots(order_, &slots);
  const SortedRun big(&region_, slots, memory_);
  EXPECT_LE(big.bytes(),
            slots.size() * SortedRun::kMaxBytesPerEntry + 8 +
                8 * (slots.size() / (SortedRun::kFenceStride * SortedRun::kTopStride) + 1));
  const std::vector<RunSlot> half(slots.begin(), slots.begin() + SortedRun::kPrefixedRunMax);
  const SortedRun small(&region_, half, memory_);
  EXPECT_GE(small.bytes(), half.size() * SortedRun::kBytesPerEntryWithPrefixes);
  // A merge picks the layout by the merged size.
  const std::vector<RunSlot> lower(slots.begin(), slots.begin() + 10);
  const std::vector<RunSlot> upper(slots.begin() + 10, slots.end());
  auto merged = SortedRun::Merge(order_, SortedRun(&region_, lower, memory_),
                                 SortedRun(&region_, upper, memory_), memory_);
  EXPECT_EQ(merged->bytes(), big.bytes());
}

TEST_F(SortedRunTest, AMergeStopsWhenCancelled) {
  // Enough rows for the merge to reach its first cancellation check.
  std::vector<RunSlot> odd, even;
  for (size_t i = 0; i < SortedRun::kCancelCheck + 100; ++i) {
    (i % 2 ? odd : even).push_back(Slot(testing::NumberKey(i), 1));
  }
  const SortedRun a(&region_, odd, memory_), b(&region_, even, memory_);
  std::atomic<bool> cancel{true};
  EXPECT_EQ(SortedRun::Merge(order_, a, b, memory_, SortedRun::Layout::kAuto, &cancel), nullptr);
  cancel = false;
  auto merged = SortedRun::Merge(order_, a, b, memory_, SortedRun::Layout::kAuto, &cancel);
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->size(), odd.size() + even.size());
}

// Destroying a rep must not wait for a big merge: Close cancels it.
TEST(RunIndex, CloseStopsABigMergeInsteadOfWaitingForIt) {
  memory::Arena arena;
  RowRegion region(&arena, 65536, WriteList::kLinkBytes);
  ASSERT_TRUE(region.Init().ok());
  const format::KeyOrder order(nullptr);
  concurrency::BackgroundPool pool(1);
  constexpr int kHalf = 300000;  // two runs that take tens of milliseconds to merge
  std::vector<RowRef> refs;
  for (int i = 0; i < 2 * kHalf; ++i) {
    const std::string key = testing::NumberKey(static_cast<uint64_t>(i) * 7919 % (2 * kHalf));
    RowRef ref;
    ASSERT_TRUE(region.Allocate(RowSize(key.size(), 1), &ref).ok());
    EncodeRow(region.Row(ref), EntryView::Of(key, 1, ValueType::kValue, "v"));
    refs.push_back(ref);
  }
  uint64_t cancelled = 0;
  for (int attempt = 0; attempt < 20 && cancelled == 0; ++attempt) {
    RunIndexOptions options;
    options.seal_threshold = kHalf;              // each Snapshot below publishes one run
    options.background_cut = uint32_t{1} << 24;  // no background cut
    auto index = std::make_shared<RunIndex>(options, order, region, pool);
    for (int i = 0; i < kHalf; ++i) index->Push(refs[i]);
    index->Snapshot();
    for (int i = kHalf; i < 2 * kHalf; ++i) index->Push(refs[i]);
    index->Snapshot();
    ASSERT_EQ(index->NumRuns(), 2u);
    index->Freeze();  // the strand merges both into one
    std::this_thread::sleep_for(std::chrono::milliseconds(2 + attempt));
    index->Close();
    cancelled = index->MergesCancelled();
    if (cancelled > 0) {
      EXPECT_EQ(index->NumRuns(), 2u) << "a cancelled merge publishes nothing";
    }
  }
  pool.Drain();
  EXPECT_GT(cancelled, 0u) << "Close never caught the merge running, in 20 attempts";
}

// A set of runs of the given sizes (the entries are placeholders: PickMerge
// looks at sizes only).
RunSet SetOfSizes(const std::vector<size_t>& sizes, const MemoryCounter& memory) {
  static const char kEntry[1] = {0};
  RunSet set;
  for (size_t n : sizes) {
    set.runs.push_back(std::make_shared<const SortedRun>(
        nullptr, std::vector<RunSlot>(n, RunSlot{0, kEntry, 0}), memory));
  }
  return set;
}

TEST_F(SortedRunTest, PickMergeJoinsTheSmallestRunsWithinTheRatio) {
  std::vector<size_t> picks;
  auto sorted = [&] {
    std::vector<size_t> p = picks;
    std::sort(p.begin(), p.end());
    return p;
  };
  // 100 and 400 are within kMergeRatio; 1000 is more than 4x 100 but within 4x of 400.
  RunSet set = SetOfSizes({1000, 100, 400}, memory_);
  ASSERT_TRUE(PickMerge(set, 8, false, &picks));
  EXPECT_EQ(sorted(), (std::vector<size_t>{1, 2}));
  // Each run more than kMergeRatio times the next: in shape, unless all are wanted.
  set =
      SetOfSizes({100, 100 * kMergeRatio + 1, (100 * kMergeRatio + 1) * kMergeRatio + 1}, memory_);
  EXPECT_FALSE(PickMerge(set, 8, false, &picks));
  ASSERT_TRUE(PickMerge(set, 8, true, &picks));
  EXPECT_EQ(sorted(), (std::vector<size_t>{0, 1, 2})) << "every run, in one merge";
  // Too many runs: the smallest, as many as bring the count to max_runs.
  set = SetOfSizes({100000, 10, 100, 1000, 10000}, memory_);
  ASSERT_TRUE(PickMerge(set, 2, false, &picks));
  EXPECT_EQ(sorted(), (std::vector<size_t>{1, 2, 3, 4}));
  ASSERT_TRUE(PickMerge(set, 4, false, &picks));
  EXPECT_EQ(sorted(), (std::vector<size_t>{1, 2})) << "at least two";
  EXPECT_FALSE(PickMerge(SetOfSizes({5}, memory_), 1, true, &picks)) << "one run: nothing to merge";
}

TEST_F(SortedRunTest, PickMergeLeavesRunsAnotherMergeHolds) {
  std::vector<size_t> picks;
  auto sorted = [&] {
    std::vector<size_t> p = picks;
    std::sort(p.begin(), p.end());
    return p;
  };
  // 100 and 400 would be merged first; with 400 busy, 1000 and 2000 are the pair.
  RunSet set = SetOfSizes({1000, 100, 400, 2000}, memory_);
  const std::vector<const SortedRun*> busy400{set.runs[2].get()};
  ASSERT_TRUE(PickMerge(set, 8, false, &picks, busy400));
  EXPECT_EQ(sorted(), (std::vector<size_t>{0, 3}));
  // Every run but the busy ones, when all are wanted.
  ASSERT_TRUE(PickMerge(set, 8, true, &picks, busy400));
  EXPECT_EQ(sorted(), (std::vector<size_t>{0, 1, 3}));
  // Busy runs count toward max_runs: 5 runs, max 3, two busy: the three
  // free ones are merged (the busy pair's merge brings the count to 2).
  set = SetOfSizes({100000, 10, 100000, 1000, 100000 * kMergeRatio * kMergeRatio}, memory_);
  const std::vector<const SortedRun*> busy_big{set.runs[0].get(), set.runs[2].get()};
  ASSERT_TRUE(PickMerge(set, 3, false, &picks, busy_big));
  EXPECT_EQ(sorted(), (std::vector<size_t>{1, 3, 4}));
  // Fewer than two free runs: nothing to pick, whatever the count.
  const std::vector<const SortedRun*> all_but_one{set.runs[0].get(), set.runs[1].get(),
                                                  set.runs[2].get(), set.runs[3].get()};
  EXPECT_FALSE(PickMerge(set, 1, true, &picks, all_but_one));
  EXPECT_FALSE(PickMerge(set, 1, false, &picks, all_but_one));
}

}  // namespace
}  // namespace memrep::runs

namespace memrep::runs {
namespace {

// A point read that could not get memory for a view (GetRowsWithoutMemory)
// hands out the same rows, in the same order, as a seek in a view: over
// runs, a shared sorted tail and rows nobody sorted yet.
TEST(RunIndex, AReadWithoutMemoryFindsWhatAViewFinds) {
  memory::Arena arena;
  RowRegion region(&arena, 65536, WriteList::kLinkBytes);
  ASSERT_TRUE(region.Init().ok());
  const format::KeyOrder order(nullptr);
  concurrency::BackgroundPool pool(1);
  RunIndexOptions options;
  options.seal_threshold = 200;
  options.background_cut = uint32_t{1} << 24;
  auto index = std::make_shared<RunIndex>(options, order, region, pool);
  std::mt19937 rng(7);
  auto push = [&](int n) {
    for (int i = 0; i < n; ++i) {
      const std::string key = testing::NumberKey(rng() % 300);
      RowRef ref;
      ASSERT_TRUE(region.Allocate(RowSize(key.size(), 1), &ref).ok());
      EncodeRow(region.Row(ref), EntryView::Of(key, 1 + i + n, ValueType::kValue, "v"));
      index->Push(ref);
    }
  };
  push(500);
  (void)index->Snapshot();  // a run
  push(100);
  (void)index->Snapshot();  // a shared tail
  push(50);                 // unsorted
  for (uint64_t k = 0; k < 310; ++k) {
    const std::string target = testing::InternalKey(testing::NumberKey(k), kMaxSequenceNumber);
    std::vector<const char*> with, without;
    auto collect = [](void* arg, const char* row) {
      auto* out = static_cast<std::vector<const char*>*>(arg);
      out->push_back(row);
      return out->size() < 8;  // a few versions, as a Get of merges reads
    };
    index->GetRowsWithoutMemory(target, &without, collect);
    RunIndex::View view = index->Snapshot();
    MergingCursor cursor(order);
    for (const auto& run : view.set->runs) cursor.AddSource(run.get());
    view.ForEachLevel([&](const SortedRun* level) { cursor.AddSource(level); });
    for (cursor.Seek(target); cursor.Valid() && collect(&with, cursor.row()); cursor.Next()) {
    }
    ASSERT_EQ(with, without) << k;
  }
  index->Close();
}

}  // namespace
}  // namespace memrep::runs

namespace memrep::runs {
namespace {

// Blocks a pool's threads until released: the index's strand then never
// runs, as when writers hold every core.
class BlockedPool {
 public:
  explicit BlockedPool(concurrency::BackgroundPool& pool) : strand_(&pool) {
    strand_.Post([this] {
      while (!released_.load(std::memory_order_acquire)) std::this_thread::yield();
    });
  }
  ~BlockedPool() { Release(); }
  void Release() { released_.store(true, std::memory_order_release); }

 private:
  concurrency::Strand strand_;
  std::atomic<bool> released_{false};
};

struct HelpFixture {
  HelpFixture() : region(&arena, 1 << 20, WriteList::kLinkBytes), order(nullptr), pool(1) {
    EXPECT_TRUE(region.Init().ok());
  }
  // Pushes n rows, key seq % 997 at sequence seq, for the next n of *seq.
  void PushRows(RunIndex& index, uint64_t* seq, int n) {
    for (int i = 0; i < n; ++i) {
      ++*seq;
      index.Push(Row(*seq % 997, *seq));
    }
  }
  RowRef Row(uint64_t key, SequenceNumber seq) {
    const std::string k = testing::NumberKey(key);
    RowRef ref = 0;
    EXPECT_TRUE(region.Allocate(RowSize(k.size(), 1), &ref).ok());
    EncodeRow(region.Row(ref), EntryView::Of(k, seq, ValueType::kValue, "v"));
    return ref;
  }
  // An index that neither the strand's cuts nor readers' seals divide
  // into runs (until Freeze): only what a test does moves its run set.
  std::shared_ptr<RunIndex> UncutIndex() {
    RunIndexOptions options;
    options.background_cut = 1 << 20;
    options.seal_threshold = 1 << 20;
    return std::make_shared<RunIndex>(options, order, region, pool);
  }
  // A view of one run (the frozen index's merge) showing `rows` rows.
  void ExpectOneRun(const RunIndex::View& view, uint64_t rows) const {
    EXPECT_EQ(view.set->runs.size(), 1u);
    EXPECT_EQ(CountView(order, view), rows);
  }
  // Freezes the index, lets the pool run, and waits (up to 2 s) for the
  // strand's whole-index merge; whether it made one run.
  static bool FreezeToOneRun(RunIndex& index, BlockedPool& blocked) {
    index.Freeze();
    blocked.Release();
    for (int i = 0; i < 1000 && index.NumRuns() != 1; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return index.NumRuns() == 1;
  }
  static uint64_t CountView(const format::KeyOrder& order, const RunIndex::View& view) {
    MergingCursor cursor(order);
    for (const auto& run : view.set->runs) cursor.AddSource(run.get());
    view.ForEachLevel([&](const SortedRun* level) { cursor.AddSource(level); });
    uint64_t n = 0;
    for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) ++n;
    return n;
  }
  memory::Arena arena;
  RowRegion region;
  const format::KeyOrder order;
  concurrency::BackgroundPool pool;
};

// While readers take views, a writer cuts its rows itself each time it has
// pushed background_cut of them, so the rows in no run stay below that
// however far behind the strand is (here it never runs). With no reader,
// writers leave the work to the strand.
TEST(RunIndex, WritersCutTheirRowsWhileReadersArePresent) {
  HelpFixture f;
  BlockedPool blocked(f.pool);
  RunIndexOptions options;
  options.background_cut = 256;
  options.seal_threshold = 1 << 20;  // readers never publish runs themselves
  auto index = std::make_shared<RunIndex>(options, f.order, f.region, f.pool);
  uint64_t seq = 0;
  f.PushRows(*index, &seq, 1000);
  EXPECT_EQ(index->WriterHelps(), 0u) << "no reader yet: the writer only requests work";
  EXPECT_EQ(index->Unsorted(), 1000u);
  EXPECT_EQ(index->NumRuns(), 0u);

  (void)index->Snapshot();  // a reader: it sorts the 1000 rows for its view
  uint64_t most_unsorted = 0;
  for (int i = 0; i < 20000; ++i) {
    f.PushRows(*index, &seq, 1);
    // From the first help on (the rows of the reader-free start wait for it).
    if (index->WriterHelps() > 0) most_unsorted = std::max(most_unsorted, index->Unsorted());
    if (i % 64 == 0) (void)index->Snapshot();
  }
  EXPECT_GT(index->WriterHelps(), 0u);
  EXPECT_LT(most_unsorted, uint64_t{options.background_cut});
  EXPECT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
  blocked.Release();
  index->Close();
  f.pool.Drain();
}

// The one run a frozen index's merge makes keeps the point filter where the
// index has one (a Get for a key it does not hold then reads one filter word
// instead of searching it), and fits in what the rows were charged while
// they were in no run: the charge, recorded before Freeze, does not change.
TEST(RunIndex, AFrozenIndexsRunKeepsItsPointFilterWithinTheCharge) {
  for (const bool filters : {false, true}) {
    SCOPED_TRACE(filters ? "point filters" : "no point filter");
    HelpFixture f;
    BlockedPool blocked(f.pool);  // no cut before Freeze: every row in no run
    RunIndexOptions options;
    options.point_filters = filters;
    auto index = std::make_shared<RunIndex>(options, f.order, f.region, f.pool);
    uint64_t seq = 0;
    f.PushRows(*index, &seq, 20000);
    ASSERT_EQ(index->Unsorted(), 20000u);
    const uint64_t charged = index->ChargedBytes();
    ASSERT_TRUE(HelpFixture::FreezeToOneRun(*index, blocked));
    const RunIndex::View view = index->Snapshot();
    ASSERT_EQ(view.set->runs.size(), 1u);
    EXPECT_EQ(view.set->runs[0]->filtered(), filters);
    EXPECT_FALSE(view.set->runs[0]->InLayout(SortedRun::Layout::kWithPrefixes));
    EXPECT_LE(index->RunBytes(), charged);
    EXPECT_EQ(index->ChargedBytes(), charged);
    index->Close();
    f.pool.Drain();
  }
}

// Seeks pay for merging the runs below the biggest into one: beside a writer
// whose readers only take point-read views, the runs follow the ratio rule
// (three or more at times); beside an iterator that seeks after every row,
// each of the writer's cuts leaves two runs at most once its credit covers
// them, unless seek_merges is off. Every view stays whole.
TEST(RunIndex, SeeksPayForMergingTheRunsBelowTheBiggest) {
  HelpFixture f;
  BlockedPool blocked(f.pool);
  RunIndexOptions options;
  options.background_cut = 256;
  options.seal_threshold = 1 << 20;  // only the writer's cuts make runs
  // most: the most runs seen once the writer has helped (cut) once.
  auto run = [&](bool seeks, size_t* most, uint64_t* seek_merges) {
    auto index = std::make_shared<RunIndex>(options, f.order, f.region, f.pool);
    uint64_t seq = 0;
    *most = 0;
    for (int i = 0; i < 20000; ++i) {
      f.PushRows(*index, &seq, 1);
      if (seeks) {
        index->ReturnView(index->ReaderView());
      } else {
        index->WithReadView([](const RunIndex::View&) {});
      }
      if (index->WriterHelps() > 0) *most = std::max(*most, index->NumRuns());
    }
    EXPECT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
    EXPECT_GT(index->WriterHelps(), 0u);
    *seek_merges = index->SeekMerges();
    index->Close();
  };
  size_t most = 0;
  uint64_t seek_merges = 0;
  run(/*seeks=*/false, &most, &seek_merges);
  EXPECT_EQ(seek_merges, 0u) << "point reads pay for no merge";
  EXPECT_GE(most, 3u) << "the ratio rule alone keeps several runs";
  run(/*seeks=*/true, &most, &seek_merges);
  EXPECT_GT(seek_merges, 0u);
  EXPECT_LE(most, 2u);
  // Turned off: seeks pay for nothing, and the ratio rule alone keeps the runs.
  options.seek_merges = false;
  run(/*seeks=*/true, &most, &seek_merges);
  EXPECT_EQ(seek_merges, 0u) << "seek_merges=false";
  EXPECT_GE(most, 3u);
  blocked.Release();
  f.pool.Drain();
}

// While readers take views, a writer also sorts the rows after the shared
// tail into it every kTailStep of its rows, so a reader's own sorting is
// the few rows since; with no reader it never does. Every view stays whole.
TEST(RunIndex, WritersRefreshTheSharedTailWhileReadersArePresent) {
  HelpFixture f;
  BlockedPool blocked(f.pool);
  RunIndexOptions options;
  options.background_cut = 256;
  options.seal_threshold = 1 << 20;  // no run is published: the tail holds every row
  auto index = std::make_shared<RunIndex>(options, f.order, f.region, f.pool);
  uint64_t seq = 0;
  f.PushRows(*index, &seq, 1000);
  EXPECT_EQ(index->TailRefreshes(), 0u) << "no reader: writers leave the tail alone";

  ASSERT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);  // a reader
  // The writer notices the reader at its next background_cut mark, then
  // refreshes every kTailStep rows.
  constexpr int kPushes = 4096;
  for (int i = 0; i < kPushes; ++i) {
    f.PushRows(*index, &seq, 1);
    if (i % 37 == 0) {
      const RunIndex::View view = index->Snapshot();
      ASSERT_EQ(HelpFixture::CountView(f.order, view), seq) << "after row " << seq;
    }
  }
  const uint64_t expected = (kPushes - options.background_cut) / RunIndex::kTailStep;
  EXPECT_GE(index->TailRefreshes(), expected * 9 / 10);
  EXPECT_LE(index->TailRefreshes(), kPushes / RunIndex::kTailStep + 1);
  // Right after a refresh, a reader sorts only the rows pushed since, as
  // one level of its own view.
  const uint64_t refreshes = index->TailRefreshes();
  while (index->TailRefreshes() == refreshes) f.PushRows(*index, &seq, 1);
  f.PushRows(*index, &seq, 5);
  const RunIndex::View view = index->Snapshot();
  ASSERT_NE(view.tail, nullptr);
  EXPECT_GE(view.tail->levels.size(), 1u) << "the refreshed rows are in the shared tail";
  ASSERT_NE(view.own, nullptr);
  EXPECT_EQ(view.own->size(), 5u);
  EXPECT_EQ(HelpFixture::CountView(f.order, view), seq);
  blocked.Release();
  index->Close();
  f.pool.Drain();
}

// Several writers and readers at once, the strand blocked: every row is in
// every later view exactly once, and the rows in no run stay bounded (a
// writer that finds another cutting waits once they pass the bound).
TEST(RunIndex, HelpingWritersKeepViewsCompleteAndBounded) {
  HelpFixture f;
  BlockedPool blocked(f.pool);
  RunIndexOptions options;
  options.background_cut = 128;
  options.seal_threshold = 1 << 20;
  auto index = std::make_shared<RunIndex>(options, f.order, f.region, f.pool);
  constexpr int kWriters = 3, kPerWriter = 6000;
  std::atomic<int> writers_done{0};
  std::atomic<bool> reading{false};
  std::atomic<uint64_t> most_unsorted{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      while (!reading.load()) std::this_thread::yield();
      for (int i = 0; i < kPerWriter; ++i) {
        // Distinct (key, sequence) per row: sequence w * kPerWriter + i + 1.
        const SequenceNumber s = static_cast<SequenceNumber>(w) * kPerWriter + i + 1;
        index->Push(f.Row(s % 1009, s));
      }
      writers_done.fetch_add(1);
    });
  }
  threads.emplace_back([&] {
    while (writers_done.load() < kWriters) {
      // Cheap views, so that the index always counts as having readers
      // (a view's rows: its runs' and its tail's).
      const uint64_t before = index->Count();
      const RunIndex::View view = index->Snapshot();
      reading.store(true);
      EXPECT_GE(view.set->entries + view.TailSize(), before);
      uint64_t u = index->Unsorted(), m = most_unsorted.load();
      while (u > m && !most_unsorted.compare_exchange_weak(m, u)) {
      }
    }
  });
  for (auto& t : threads) t.join();
  EXPECT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), uint64_t{kWriters} * kPerWriter);
  EXPECT_GT(index->WriterHelps(), 0u);
  // Bounded: the bound (4 x background_cut) plus what each writer pushes
  // between two checks, and more where the reader thread was descheduled for
  // longer than the reader window (writers then stop helping) on a busy
  // machine; without help, every row would wait (the strand is blocked).
  EXPECT_LE(most_unsorted.load(), uint64_t{kWriters} * kPerWriter / 4);
  blocked.Release();
  index->Close();
  f.pool.Drain();
}

// The strand makes its big merges without work_mu_: a writer that starts
// helping readers while one runs (the strand began it before there were
// readers) cuts and merges the other runs beside it instead of waiting or
// writing on. Every view stays whole.
TEST(RunIndex, WritersMergeBesideTheStrandsBigMerge) {
  HelpFixture f;
  RunIndexOptions options;
  options.background_cut = 64;  // merges of more than 1024 rows are big
  options.seal_threshold = 1 << 20;
  auto index = std::make_shared<RunIndex>(options, f.order, f.region, f.pool);
  uint64_t seq = 0;
  // Each attempt: rows with no reader (the strand cuts and merges), then a
  // reader and more rows (the writer helps at its next background_cut).
  for (int attempt = 0; attempt < 20 && index->MergesBesideBig() == 0; ++attempt) {
    // No Snapshot for longer than the reader window: no reader.
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    f.PushRows(*index, &seq, 100000);
    for (int i = 0; i < 100; ++i) {
      ASSERT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
      f.PushRows(*index, &seq, 200);
    }
  }
  EXPECT_GT(index->MergesBesideBig(), 0u) << "no merge was made beside a big one in 20 attempts";
  EXPECT_GT(index->WriterHelps(), 0u);
  EXPECT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
  index->Close();
  f.pool.Drain();
}

// While writers help readers, a pause longer than the recheck period (a
// writer that lost its core) does not make the index idle: the strand does
// not merge it whole until writers stop coming for the reader window.
TEST(RunIndex, AWriterPauseBesideReadersIsNotIdleness) {
  HelpFixture f;
  RunIndexOptions options;
  options.background_cut = 64;
  options.seal_threshold = 1 << 20;
  options.max_runs = 64;
  auto index = std::make_shared<RunIndex>(options, f.order, f.region, f.pool);
  uint64_t seq = 0;
  (void)index->Snapshot();  // a reader
  for (int i = 0; i < 50; ++i) {
    f.PushRows(*index, &seq, 64);
    (void)index->Snapshot();
  }
  ASSERT_GT(index->WriterHelps(), 0u);
  ASSERT_GT(index->NumRuns(), 1u);
  // Three recheck periods with no row: once, the strand merged everything.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  (void)index->Snapshot();
  EXPECT_GT(index->NumRuns(), 1u) << "merged whole while writers were helping readers";
  EXPECT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
  // Once writers stop coming (the reader window), the index is idle: one run.
  for (int i = 0; i < 400 && index->NumRuns() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(index->NumRuns(), 1u);
  EXPECT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
  index->Close();
  f.pool.Drain();
}

}  // namespace
}  // namespace memrep::runs

namespace memrep::runs {
namespace {

// An iterator's view is the thread's last one extended by the rows pushed
// since, as one level of its own, while no run was cut or merged and those
// rows are few: the view shares the last one's set and shared levels, and
// its own level holds exactly the rows that no shared level does. Every
// view shows every row pushed before it. The view is lent (ReaderView) and
// given back (ReturnView): extending it counts no reference to the set or
// the shared levels, which every reader holds.
TEST(RunIndex, AReaderViewExtendsTheThreadsLastView) {
  HelpFixture f;
  BlockedPool blocked(f.pool);  // no cut but the readers' and the writer's
  auto index = f.UncutIndex();
  uint64_t seq = 0;
  f.PushRows(*index, &seq, 300);
  RunIndex::View first = index->ReaderView();
  ASSERT_EQ(HelpFixture::CountView(f.order, first), seq);
  const RunSet* first_set = first.set.get();
  const size_t first_own = first.own != nullptr ? first.own->size() : 0;
  const long set_count = first.set.use_count();
  const RunIndex::Tail* first_tail = first.tail.get();
  const long tail_count = first.tail.use_count();
  index->ReturnView(std::move(first));
  f.PushRows(*index, &seq, 5);
  RunIndex::View second = index->ReaderView();
  EXPECT_EQ(second.set.get(), first_set);
  EXPECT_EQ(second.set.use_count(), set_count) << "extending counted a reference to the set";
  ASSERT_NE(second.own, nullptr);
  EXPECT_EQ(second.own->size(), first_own + 5);
  EXPECT_EQ(second.tail.get(), first_tail) << "the shared tail is the same object";
  EXPECT_EQ(second.tail.use_count(), tail_count)
      << "extending counted a reference to the shared tail";
  EXPECT_EQ(HelpFixture::CountView(f.order, second), seq);
  // Lent: the slot is empty meanwhile, and a read on this thread takes a
  // view of its own, which also shows every row.
  index->WithReadView(
      [&](const RunIndex::View& view) { EXPECT_EQ(HelpFixture::CountView(f.order, view), seq); });
  const SortedRun* second_own = second.own.get();
  index->ReturnView(std::move(second));  // the slot is full: let go
  // Unchanged: the same view (the one the read above left).
  RunIndex::View again = index->ReaderView();
  RunIndex::View twice = index->ReaderView();  // lent out: a Snapshot
  EXPECT_EQ(HelpFixture::CountView(f.order, again), seq);
  EXPECT_EQ(HelpFixture::CountView(f.order, twice), seq);
  EXPECT_NE(again.own.get(), second_own);
  index->ReturnView(std::move(twice));
  index->ReturnView(std::move(again));
  // Rows pushed in steps of 1 to 40: the own level never passes
  // kPrivateTailMax (then a Snapshot folds it into the shared tail).
  std::mt19937 rng(7);
  size_t extended = 0, most_own = 0;
  for (int step = 0; step < 400; ++step) {
    RunIndex::View before = index->ReaderView();
    const RunSet* before_set = before.set.get();
    const bool before_own = before.own != nullptr;
    const RunIndex::Tail* before_tail = before.tail.get();
    index->ReturnView(std::move(before));
    // Keys in no order (the own level merges new rows among the kept ones).
    for (int n = 1 + static_cast<int>(rng() % 40); n > 0; --n) {
      ++seq;
      index->Push(f.Row(rng() % 997, seq));
    }
    RunIndex::View view = index->ReaderView();
    ASSERT_EQ(HelpFixture::CountView(f.order, view), seq) << "step " << step;
    if (view.own != nullptr) {
      const SortedRun& own = *view.own;
      most_own = std::max(most_own, own.size());
      for (size_t i = 1; i < own.size(); ++i) {
        const RunSlot a{own.PrefixAt(f.order, i - 1), own.row(i - 1), own.ref(i - 1)};
        const RunSlot b{own.PrefixAt(f.order, i), own.row(i), own.ref(i)};
        ASSERT_LT(CompareSlots(f.order, a, b), 0) << "step " << step << ", own level row " << i;
      }
    }
    extended += view.set.get() == before_set && view.own != nullptr && before_own &&
                        view.tail.get() == before_tail
                    ? 1
                    : 0;
    index->ReturnView(std::move(view));
  }
  EXPECT_LE(most_own, RunIndex::kPrivateTailMax);
  EXPECT_GT(extended, 50u) << "the last view was hardly ever extended";
  // A cut (a new run set) is never extended over: the next view is whole
  // and built from the new set; a view of the old set given back is let go.
  RunIndex::View old_set = index->ReaderView();
  const RunSet* old_set_ptr = old_set.set.get();
  ASSERT_TRUE(HelpFixture::FreezeToOneRun(*index, blocked));
  std::weak_ptr<const RunSet> old_weak = old_set.set;
  index->ReturnView(std::move(old_set));
  old_set = RunIndex::View{};
  EXPECT_TRUE(old_weak.expired()) << "a view of a replaced set was kept in the slot";
  const RunIndex::View merged = index->ReaderView();
  EXPECT_NE(merged.set.get(), old_set_ptr);
  f.ExpectOneRun(merged, seq);
  index->Close();
  f.pool.Drain();
}

// A reader renewing its view hands its run set to Snapshot, which keeps it
// only while it is the current set: a set that a merge replaced is let go
// and the view is built on the current one, with every row.
TEST(RunIndex, ASnapshotKeepsTheCallersSetOnlyWhileCurrent) {
  HelpFixture f;
  BlockedPool blocked(f.pool);
  auto index = f.UncutIndex();
  uint64_t seq = 0;
  f.PushRows(*index, &seq, 300);
  std::shared_ptr<const RunSet> first = index->Snapshot().set;
  // Current: kept (the same set, the rows pushed since in the tail).
  f.PushRows(*index, &seq, 10);
  const RunIndex::View same = index->Snapshot(first);
  EXPECT_EQ(same.set, first);
  EXPECT_EQ(HelpFixture::CountView(f.order, same), seq);
  // Replaced by the frozen index's merge: not kept.
  ASSERT_TRUE(HelpFixture::FreezeToOneRun(*index, blocked));
  const RunIndex::View merged = index->Snapshot(first);
  EXPECT_NE(merged.set, first);
  f.ExpectOneRun(merged, seq);
  index->Close();
  f.pool.Drain();
}

// A point read's view is the thread's last one while nothing changed, and a
// new one as soon as a row arrives or the runs change: every read sees
// every row pushed before it, whether the strand, a reader or nobody cut.
TEST(RunIndex, AReadViewShowsEveryRowPushedBeforeTheRead) {
  HelpFixture f;
  RunIndexOptions options;
  options.background_cut = 64;
  options.seal_threshold = 100;
  auto index = std::make_shared<RunIndex>(options, f.order, f.region, f.pool);
  for (SequenceNumber seq = 1; seq <= 1000; ++seq) {
    index->Push(f.Row(seq % 313, seq));
    for (int again = 0; again < 2; ++again) {  // the second read reuses the view
      uint64_t seen = 0;
      index->WithReadView(
          [&](const RunIndex::View& view) { seen = HelpFixture::CountView(f.order, view); });
      ASSERT_EQ(seen, seq) << "read " << again << " after row " << seq;
    }
  }
  index->Close();
  f.pool.Drain();
}

// ~RunIndex orders itself after the index's last reader in memrep's own
// terms (invariant 4 of the reader slots): a caller may drop the last
// reference on a thread that learnt of the reader's end only through
// synchronization ThreadSanitizer does not see, as RocksDB's threads do in
// an uninstrumented librocksdb. Here that link is a relaxed flag, which
// orders nothing; in the tsan lane a destructor that freed the reader's
// slot view without first acquiring the slot is reported as a race.
TEST(RunIndex, TheLastReferenceMayGoAfterAReaderOrderedOnlyByTheCaller) {
  HelpFixture f;
  auto index = std::make_shared<RunIndex>(RunIndexOptions{}, f.order, f.region, f.pool);
  for (SequenceNumber seq = 1; seq <= 1000; ++seq) index->Push(f.Row(seq % 313, seq));
  index->Close();
  f.pool.Drain();  // no strand task holds a reference: the reset below is the last
  std::atomic<bool> done{false};
  uint64_t seen = 0;                   // written by the reader before the flag; read after join
  RunIndex* const read = index.get();  // the reader does not read `index`, which reset writes
  std::thread reader([&f, &done, &seen, read] {
    for (int i = 0; i < 3; ++i) {
      read->WithReadView(
          [&](const RunIndex::View& view) { seen = HelpFixture::CountView(f.order, view); });
    }
    done.store(true, std::memory_order_relaxed);  // orders nothing (the point)
  });
  while (!done.load(std::memory_order_relaxed)) std::this_thread::yield();
  index.reset();  // the slot's view (the reader's) is freed here
  reader.join();
  EXPECT_EQ(seen, 1000u);
}

}  // namespace
}  // namespace memrep::runs

namespace memrep::runs {
namespace {

// Push reports a shard's marks: kCut every due_every nodes, and kTail once
// at the mark ArmTail set; with no kTail armed, only kCut.
TEST(WriteList, PushReportsTheCutAndTailMarks) {
  memory::Arena arena;
  RowRegion region(&arena, 1 << 16, WriteList::kLinkBytes);
  ASSERT_TRUE(region.Init().ok());
  WriteList list(/*due_every=*/100);
  auto push = [&] {
    RowRef ref;
    EXPECT_TRUE(region.Allocate(16, &ref).ok());
    return list.Push(region, ref, ref, 1, /*exclusive=*/true);
  };
  std::vector<int> cuts, tails;
  for (int i = 1; i <= 250; ++i) {
    const unsigned marks = push();
    if (marks & WriteList::kCut) cuts.push_back(i);
    if (marks & WriteList::kTail) tails.push_back(i);
  }
  EXPECT_EQ(cuts, (std::vector<int>{100, 200}));
  EXPECT_TRUE(tails.empty());
  list.ArmTail(7);  // at 257
  cuts.clear();
  for (int i = 251; i <= 320; ++i) {
    const unsigned marks = push();
    if (marks & WriteList::kCut) cuts.push_back(i);
    if (marks & WriteList::kTail) tails.push_back(i);
  }
  EXPECT_EQ(tails, (std::vector<int>{257})) << "once, until armed again";
  EXPECT_EQ(cuts, (std::vector<int>{300}));
  list.ArmTail(80);  // at 400, with the cut at 400: both at once
  unsigned both = 0;
  for (int i = 321; i <= 400; ++i) both = push();
  EXPECT_EQ(both, WriteList::kCut | WriteList::kTail);
  EXPECT_EQ(list.Count(), 400u);
}

}  // namespace
}  // namespace memrep::runs
