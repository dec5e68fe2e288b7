#include "runs/sorted_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "memory/arena.h"
#include "runs/merging_cursor.h"
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
