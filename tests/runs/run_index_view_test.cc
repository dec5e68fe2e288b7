#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "runs/run_index.h"
#include "runs/run_index_fixture.h"
#include "test_util.h"

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
