// Behaviour particular to the vector rep: its appends, its duplicate record,
// its final sort and its memory accounting. What every rep does is in
// rep_conformance_test.cc, which runs the vector rep too.
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "concurrency/background_pool.h"
#include "memory/arena.h"
#include "rep/batch_duplicates.h"
#include "runs/sorted_run.h"
#include "test_util.h"
#include "vector/vector_rep.h"

namespace memrep::vector {
namespace {

using rep::BatchDuplicates;
using runs::SortedRun;
using testing::MakeEntry;
using testing::NumberKey;

std::unique_ptr<VectorRep> Make(const VectorOptions& options, memory::Arena* arena, bool rows,
                                const UserKeyComparator* comparator = nullptr) {
  RepContext context;
  context.allocator = arena;
  context.rows = rows;
  context.comparator = comparator;
  return testing::MakeRepAs<VectorRep>(options, context);
}

void WaitForRuns(const VectorRep& rep, size_t runs) {
  (void)testing::WaitUntil([&] {
    concurrency::BackgroundPool::Shared().Drain();
    return rep.NumRuns() == runs;
  });
}

// Keys i * 7919 mod n: every key once, in an order far from sorted.
std::string Shuffled(int i, int n) { return NumberKey(static_cast<uint64_t>(i) * 7919 % n); }

TEST(Vector, WithoutBackgroundCutsWritesSortNothingUntilReadOrFrozen) {
  memory::Arena arena;
  VectorOptions o;
  o.background_cut = VectorOptions::kMaxThreshold;
  auto rep = Make(o, &arena, true);
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(rep->Insert(MakeEntry(rep.get(), Shuffled(i, 20000), 1, 1, "v")));
  }
  // No background cut is asked for while writes go on: nothing is sorted yet.
  EXPECT_EQ(rep->NumRuns(), 0u);
  EXPECT_EQ(rep->NumEntries(), 20000u);
  rep->Freeze();
  // The final sort works in pieces (scratch), and the one run it leaves
  // fits what MemoryUsage charged for rows in no run; the figure is constant.
  const size_t charged = rep->MemoryUsage();
  WaitForRuns(*rep, 1);
  ASSERT_EQ(rep->NumRuns(), 1u) << "a frozen vector is one sorted array";
  concurrency::BackgroundPool::Shared().Drain();
  EXPECT_EQ(rep->MemoryUsage(), charged);
  EXPECT_LE(rep->RunBytes(), charged);
  auto it = rep->NewIterator();
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    ASSERT_EQ(it->entry().user_key, NumberKey(n));
  }
  EXPECT_EQ(n, 20000);
}

TEST(Vector, AReaderSortsOnlyWhatArrivedSinceTheLastOneAndSealsItAsARun) {
  memory::Arena arena;
  VectorOptions o;
  o.seal_threshold = 1000;
  auto rep = Make(o, &arena, true);
  for (int i = 0; i < 999; ++i) {
    ASSERT_TRUE(rep->Insert(MakeEntry(rep.get(), Shuffled(i, 5000), 1, 1, "v")));
  }
  EXPECT_TRUE(rep->Contains(testing::InternalKey(Shuffled(998, 5000), 1)));
  EXPECT_EQ(rep->NumRuns(), 0u) << "under seal_threshold, the sorted tail stays shared";
  ASSERT_TRUE(rep->Insert(MakeEntry(rep.get(), Shuffled(999, 5000), 1, 1, "v")));
  EXPECT_TRUE(rep->Contains(testing::InternalKey(Shuffled(999, 5000), 1)));
  EXPECT_EQ(rep->NumRuns(), 1u) << "at seal_threshold, a reader publishes the tail as a run";
  EXPECT_FALSE(rep->Contains(testing::InternalKey(Shuffled(999, 5000), 2)));
}

TEST(Vector, MemoryUsageChargesRunsAsTheyAreBuiltAndIsConstantOnceWritesStop) {
  memory::Arena arena;
  VectorOptions o;
  o.seal_threshold = 500;
  auto rep = Make(o, &arena, true);
  EXPECT_EQ(rep->MemoryUsage(), 0u) << "no node yet";
  size_t last = 0;
  for (int i = 0; i < 3000; ++i) {
    ASSERT_TRUE(rep->Insert(MakeEntry(rep.get(), Shuffled(i, 3000), 1, 1, "v")));
    if (i % 100 == 0) {
      rep->NewIterator()->SeekToFirst();
      // The background cuts and merges a reader starts finish before the next
      // insert, however loaded the machine: the bound below is for a rep
      // whose background work keeps up (a ThreadSanitizer run on an oversubscribed
      // machine, background lagging, charged 1.4% over it).
      concurrency::BackgroundPool::Shared().Drain();
    }
    const size_t now = rep->MemoryUsage();
    ASSERT_GE(now, last) << "it grows with inserts only";
    last = now;
  }
  // Well under what charging every run twice in advance took (24 bytes a
  // row and more): the runs as built (every prefix kept while writes
  // continue), 5.5 bytes for each row in none, and at most one shared tail
  // (under seal_threshold rows) counted beside the run just cut from it, as a
  // charge read between the two publications may see.
  const size_t table_bytes =
      arena.MemoryUsage() /
      memory::RowRegion::ChunkBytesFor(VectorOptions::kDefaultWriteBufferSize) * sizeof(char*);
  const size_t at_freeze = rep->MemoryUsage();
  EXPECT_LE(at_freeze, table_bytes +
                           (3000 + o.seal_threshold) * SortedRun::kBytesPerEntryWithPrefixes +
                           2 * sizeof(uint64_t) * (3000 / SortedRun::kTopStride + 1));
  rep->Freeze();
  for (int i = 0; i < 20 && rep->NumRuns() != 1; ++i) {
    rep->NewIterator()->SeekToLast();
    EXPECT_EQ(rep->MemoryUsage(), at_freeze);
    concurrency::BackgroundPool::Shared().Drain();
  }
  WaitForRuns(*rep, 1);
  concurrency::BackgroundPool::Shared().Drain();
  EXPECT_EQ(rep->MemoryUsage(), at_freeze);
  EXPECT_LE(rep->RunBytes(), at_freeze);
}

TEST(Vector, ABatchIsOneReservationOfConsecutiveNodes) {
  memory::Arena arena;
  auto rep = Make(VectorOptions{}, &arena, false);
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) keys.push_back(NumberKey(i));
  std::vector<EntryView> batch;
  for (int i = 0; i < 100; ++i)
    batch.push_back(EntryView::Of(keys[i], 10 + i, ValueType::kValue, "v"));
  ASSERT_TRUE(rep->AddBatch(batch, false).ok());
  // Ascending keys: the sorted order is the batch's, and each node directly
  // follows the one before it (a 4-byte link, then the row, in 4-byte units).
  const size_t node = (4 + RowSize(keys[0].size(), 1) + 3) / 4 * 4;
  auto it = rep->NewIterator();
  it->SeekToFirst();
  const char* previous = nullptr;
  for (int i = 0; i < 100; ++i, it->Next()) {
    ASSERT_TRUE(it->Valid());
    ASSERT_EQ(it->entry().user_key, keys[i]);
    if (previous != nullptr) {
      ASSERT_EQ(it->row() - previous, static_cast<ptrdiff_t>(node)) << i;
    }
    previous = it->row();
  }
  EXPECT_FALSE(it->Valid());
}

TEST(Vector, AnEmptyBatchAddsNothing) {
  memory::Arena arena;
  auto rep = Make(VectorOptions{}, &arena, false);
  EXPECT_TRUE(rep->AddBatch({}, false).ok());
  EXPECT_EQ(rep->NumEntries(), 0u);
}

TEST(Vector, BigEntriesInABatchGetNodesOfTheirOwn) {
  memory::Arena arena;
  auto rep = Make(VectorOptions{}, &arena, false);
  const std::string big(100000, 'b');  // over a quarter chunk
  const std::vector<std::string> keys = {"a", "b", "c", "d"};
  const std::vector<EntryView> batch = {EntryView::Of(keys[0], 1, ValueType::kValue, "small"),
                                        EntryView::Of(keys[1], 2, ValueType::kValue, big),
                                        EntryView::Of(keys[2], 3, ValueType::kValue, "small"),
                                        EntryView::Of(keys[3], 4, ValueType::kValue, big)};
  ASSERT_TRUE(rep->AddBatch(batch, false).ok());
  auto it = rep->NewIterator();
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
    ASSERT_EQ(it->entry().user_key, keys[i]);
    ASSERT_EQ(it->entry().value, batch[i].value);
  }
  EXPECT_EQ(i, 4u);
}

// Hands out `successes` allocations, then none.
class FailingAllocator final : public Allocator {
 public:
  explicit FailingAllocator(int successes) : left_(successes) {}
  char* AllocateAligned(size_t bytes) noexcept override {
    return left_-- > 0 ? arena_.AllocateAligned(bytes) : nullptr;
  }

 private:
  memory::Arena arena_;
  int left_;
};

TEST(Vector, ABatchThatRunsOutOfMemoryKeepsTheRecordsBeforeAndSaysWhichOneFailed) {
  FailingAllocator allocator(2);
  RepContext context;
  context.allocator = &allocator;
  std::unique_ptr<Rep> rep;
  ASSERT_TRUE(VectorRep::Make(VectorOptions{}, context, &rep).ok());
  const std::string big(100000, 'b');  // a node of its own each: one allocation
  const std::vector<std::string> keys = {"a", "b", "c", "d"};
  std::vector<EntryView> batch;
  for (int i = 0; i < 4; ++i)
    batch.push_back(EntryView::Of(keys[i], 1 + i, ValueType::kValue, big));
  Status s = rep->AddBatch(batch, false);
  EXPECT_TRUE(s.IsOutOfMemory()) << s.ToString();
  EXPECT_NE(s.message().find("batch record 2"), std::string::npos) << s.ToString();
  EXPECT_EQ(rep->NumEntries(), 2u);
}

// ---- BatchDuplicates ----

// A pinned copy of `key` (as a rep's own bytes would be), and its sequence.
struct Pinned {
  std::string_view key;
  SequenceNumber seq;
};
Pinned Pin(std::vector<std::string>* keep, std::string_view key, SequenceNumber seq) {
  keep->push_back(std::string(key));
  return Pinned{keep->back(), seq};
}
BatchDuplicates::Result Admit(uint64_t owner, const format::KeyOrder& order, Pinned p) {
  return BatchDuplicates::Admit(owner, order, p.key, p.seq);
}

TEST(BatchDuplicates, ARepeatAtTheWritersSequenceIsFoundPerOwner) {
  std::vector<std::string> keep;
  keep.reserve(64);  // rows must not move
  const format::KeyOrder order(nullptr);
  const uint64_t a = BatchDuplicates::NewOwner(), b = BatchDuplicates::NewOwner();
  using R = BatchDuplicates::Result;
  EXPECT_EQ(Admit(a, order, Pin(&keep, "x", 5)), R::kNew);
  EXPECT_EQ(Admit(b, order, Pin(&keep, "x", 5)), R::kNew) << "another rep";
  EXPECT_EQ(Admit(a, order, Pin(&keep, "y", 5)), R::kNew);
  EXPECT_EQ(Admit(a, order, Pin(&keep, "x", 5)), R::kDuplicate);
  EXPECT_EQ(Admit(b, order, Pin(&keep, "x", 5)), R::kDuplicate);
  EXPECT_EQ(Admit(a, order, Pin(&keep, "y", 5)), R::kDuplicate);
  // RocksDB moves to the next sequence after a refusal: a new batch.
  EXPECT_EQ(Admit(a, order, Pin(&keep, "x", 6)), R::kNew);
  EXPECT_EQ(Admit(a, order, Pin(&keep, "y", 6)), R::kNew);
  EXPECT_EQ(Admit(a, order, Pin(&keep, "x", 6)), R::kDuplicate);
}

TEST(BatchDuplicates, AnotherThreadKeepsItsOwnRecord) {
  std::vector<std::string> keep;
  keep.reserve(64);
  const format::KeyOrder order(nullptr);
  const uint64_t a = BatchDuplicates::NewOwner();
  using R = BatchDuplicates::Result;
  ASSERT_EQ(Admit(a, order, Pin(&keep, "x", 9)), R::kNew);
  ASSERT_EQ(Admit(a, order, Pin(&keep, "y", 9)), R::kNew);
  const Pinned other_x = Pin(&keep, "x", 9);
  const Pinned other_z = Pin(&keep, "z", 9);
  R first, second;
  std::thread([&] {
    first = Admit(a, order, other_x);
    second = Admit(a, order, other_z);
  }).join();
  EXPECT_EQ(first, R::kNew) << "a thread records only its own rows";
  EXPECT_EQ(second, R::kNew);
  // This thread's record was not disturbed.
  EXPECT_EQ(Admit(a, order, Pin(&keep, "y", 9)), R::kDuplicate);
}

// Keys equal when they differ only in case: a duplicate is an equal key, not
// equal bytes.
class CaseInsensitive final : public UserKeyComparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      const int x = std::tolower(static_cast<unsigned char>(a[i]));
      const int y = std::tolower(static_cast<unsigned char>(b[i]));
      if (x != y) return x < y ? -1 : 1;
    }
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  }
  const char* Name() const override { return "test.CaseInsensitive"; }
};

TEST(BatchDuplicates, KeysEqualUnderTheRepsComparatorAreDuplicates) {
  CaseInsensitive cmp;
  std::vector<std::string> keep;
  keep.reserve(64);
  const format::KeyOrder order(&cmp);
  const uint64_t a = BatchDuplicates::NewOwner();
  using R = BatchDuplicates::Result;
  std::thread([&] {  // a thread of its own: no sequence before these
    EXPECT_EQ(Admit(a, order, Pin(&keep, "Key", 3)), R::kNew);
    EXPECT_EQ(Admit(a, order, Pin(&keep, "other", 3)), R::kNew);
    EXPECT_EQ(Admit(a, order, Pin(&keep, "kEY", 3)), R::kDuplicate);
  })
      .join();
}

TEST(BatchDuplicates, BackAtTheSequenceBeforeIsEarlierAndChangesNothing) {
  // The rep then looks the row up: a row of that sequence may repeat it.
  // Any other sequence, below the current one too, begins a new group with
  // no lookup, so a thread whose sequences do not rise pays nothing.
  std::vector<std::string> keep;
  keep.reserve(64);
  const format::KeyOrder order(nullptr);
  const uint64_t a = BatchDuplicates::NewOwner();
  using R = BatchDuplicates::Result;
  std::thread([&] {
    EXPECT_EQ(Admit(a, order, Pin(&keep, "x", 20)), R::kNew);
    EXPECT_EQ(Admit(a, order, Pin(&keep, "x", 21)), R::kNew);
    EXPECT_EQ(BatchDuplicates::Current(), 21u);
    EXPECT_EQ(Admit(a, order, Pin(&keep, "x", 20)), R::kEarlier);
    EXPECT_EQ(Admit(a, order, Pin(&keep, "y", 20)), R::kEarlier);
    EXPECT_EQ(BatchDuplicates::Current(), 21u) << "the state stays at 21";
    EXPECT_EQ(Admit(a, order, Pin(&keep, "x", 21)), R::kDuplicate);
    EXPECT_EQ(Admit(a, order, Pin(&keep, "x", 7)), R::kNew) << "not the one before: a new group";
    EXPECT_EQ(BatchDuplicates::Current(), 7u);
    EXPECT_EQ(Admit(a, order, Pin(&keep, "x", 7)), R::kDuplicate);
    // Now 21 is the one before: a batch that goes back to it may meet a
    // duplicate; one that only rises, or goes below, may not.
    const auto batch = [](std::initializer_list<SequenceNumber> seqs) {
      std::vector<EntryView> out;
      for (SequenceNumber q : seqs) out.push_back(EntryView::Of("a", q, ValueType::kValue, ""));
      return out;
    };
    EXPECT_FALSE(BatchDuplicates::MayGoBack(a, batch({8, 9, 9, 10})));
    EXPECT_FALSE(BatchDuplicates::MayGoBack(a, batch({30, 3, 40})));
    EXPECT_TRUE(BatchDuplicates::MayGoBack(a, batch({21})));
    EXPECT_TRUE(BatchDuplicates::MayGoBack(a, batch({30, 31, 30})));
    EXPECT_TRUE(BatchDuplicates::MayGoBack(a, batch({30, 7})));
  }).join();
}

TEST(BatchDuplicates, AnotherRepsHigherSequenceMakesNoRowEarlier) {
  // One thread writing two databases (or a benchmark making rep after rep):
  // their sequences number apart, so a row below another rep's sequence is
  // new, and needs no lookup; a repeat at one sequence is still found.
  std::vector<std::string> keep;
  keep.reserve(64);
  const format::KeyOrder order(nullptr);
  const uint64_t a = BatchDuplicates::NewOwner(), b = BatchDuplicates::NewOwner();
  using R = BatchDuplicates::Result;
  std::thread([&] {
    EXPECT_EQ(Admit(a, order, Pin(&keep, "x", 1000)), R::kNew);
    EXPECT_EQ(Admit(b, order, Pin(&keep, "x", 5)), R::kNew);
    EXPECT_EQ(Admit(b, order, Pin(&keep, "y", 6)), R::kNew);
    EXPECT_EQ(Admit(b, order, Pin(&keep, "y", 6)), R::kDuplicate);
    EXPECT_FALSE(BatchDuplicates::MayGoBack(
        b, std::vector<EntryView>{EntryView::Of("z", 7, ValueType::kValue, "")}));
    EXPECT_FALSE(BatchDuplicates::MayGoBack(
        a, std::vector<EntryView>{EntryView::Of("z", 2, ValueType::kValue, "")}))
        << "a recorded nothing at the thread's current sequence";
    // The same rep going back is still earlier.
    EXPECT_EQ(Admit(b, order, Pin(&keep, "y", 5)), R::kEarlier);
  }).join();
}

TEST(Vector, ABatchRepeatingAKeyStopsThereThroughTheRep) {
  memory::Arena arena;
  auto rep = Make(VectorOptions{}, &arena, false);
  const std::vector<EntryView> batch = {EntryView::Of("a", 7, ValueType::kValue, "1"),
                                        EntryView::Of("b", 7, ValueType::kValue, "2"),
                                        EntryView::Of("a", 7, ValueType::kValue, "3")};
  Status s = rep->AddBatch(batch, false);
  EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  EXPECT_NE(s.message().find("batch record 2"), std::string::npos) << s.ToString();
  EXPECT_EQ(rep->NumEntries(), 2u);
  // The same key at the next sequence is a new record.
  EXPECT_TRUE(rep->Add(EntryView::Of("a", 8, ValueType::kValue, "3"), false).ok());
  EXPECT_EQ(rep->NumEntries(), 3u);
}

}  // namespace
}  // namespace memrep::vector
