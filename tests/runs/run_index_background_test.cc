#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "runs/run_index.h"
#include "runs/run_index_fixture.h"
#include "runs/run_point_hold.h"
#include "test_util.h"

namespace memrep::runs {
namespace {

#if MEMREP_RUN_POINTS
// Destroying a rep must not wait for a big merge: Close cancels it. The
// strand's merge is held as it begins until Close has begun (run_points.h),
// so Close meets it running in every run; it then stops at its first
// cancellation check instead of finishing.
TEST(RunIndex, CloseStopsABigMergeInsteadOfWaitingForIt) {
  memory::Arena arena;
  RowRegion region(&arena, 65536, WriteList::kLinkBytes);
  ASSERT_TRUE(region.Init().ok());
  const format::KeyOrder order(nullptr);
  concurrency::BackgroundPool pool(1);
  constexpr int kHalf = SortedRun::kCancelCheck;  // the merge reaches its first check
  RunIndexOptions options;
  options.seal_threshold = kHalf;              // each Snapshot below publishes one run
  options.background_cut = uint32_t{1} << 24;  // no background cut
  auto index = std::make_shared<RunIndex>(options, order, region, pool);
  // Before the second run exists: the strand may merge both as soon as the
  // index is quiet, or once frozen.
  RunPointHold hold(RunPoint::kMerge, index.get());
  for (int i = 0; i < 2 * kHalf; ++i) {
    const std::string key = testing::NumberKey(static_cast<uint64_t>(i) * 7919 % (2 * kHalf));
    RowRef ref;
    ASSERT_TRUE(region.Allocate(RowSize(key.size(), 1), &ref).ok());
    EncodeRow(region.Row(ref), EntryView::Of(key, 1, ValueType::kValue, "v"));
    index->Push(ref);
    if (i + 1 == kHalf || i + 1 == 2 * kHalf) index->Snapshot();
  }
  ASSERT_EQ(index->NumRuns(), 2u);
  index->Freeze();  // the strand merges both into one
  ASSERT_TRUE(hold.WaitHeld()) << "the strand did not begin the merge";
  index->Close();  // the hold ends once Close has begun
  EXPECT_EQ(hold.timeouts(), 0u) << "Close waited for the merge before cancelling it";
  EXPECT_EQ(index->stats().merges_cancelled.load(), 1u);
  EXPECT_EQ(index->NumRuns(), 2u) << "a cancelled merge publishes nothing";
  pool.Drain();
}
#endif

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
  EXPECT_EQ(index->stats().writer_helps.load(), 0u)
      << "no reader yet: the writer only requests work";
  EXPECT_EQ(index->Unsorted(), 1000u);
  EXPECT_EQ(index->NumRuns(), 0u);

  (void)index->Snapshot();  // a reader: it sorts the 1000 rows for its view
  uint64_t most_unsorted = 0;
  for (int i = 0; i < 20000; ++i) {
    f.PushRows(*index, &seq, 1);
    // From the first help on (the rows of the reader-free start wait for it).
    if (index->stats().writer_helps.load() > 0)
      most_unsorted = std::max(most_unsorted, index->Unsorted());
    if (i % 64 == 0) (void)index->Snapshot();
  }
  EXPECT_GT(index->stats().writer_helps.load(), 0u);
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
      if (index->stats().writer_helps.load() > 0) *most = std::max(*most, index->NumRuns());
    }
    EXPECT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
    EXPECT_GT(index->stats().writer_helps.load(), 0u);
    *seek_merges = index->stats().seek_merges.load();
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
  EXPECT_EQ(index->stats().tail_refreshes.load(), 0u) << "no reader: writers leave the tail alone";

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
  EXPECT_GE(index->stats().tail_refreshes.load(), expected * 9 / 10);
  EXPECT_LE(index->stats().tail_refreshes.load(), kPushes / RunIndex::kTailStep + 1);
  // Right after a refresh, a reader sorts only the rows pushed since, as
  // one level of its own view.
  const uint64_t refreshes = index->stats().tail_refreshes.load();
  while (index->stats().tail_refreshes.load() == refreshes) f.PushRows(*index, &seq, 1);
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
  EXPECT_GT(index->stats().writer_helps.load(), 0u);
  // Bounded: the bound (4 x background_cut) plus what each writer pushes
  // between two checks, and more where the reader thread was descheduled for
  // longer than the reader window (writers then stop helping) on a busy
  // machine; without help, every row would wait (the strand is blocked).
  EXPECT_LE(most_unsorted.load(), uint64_t{kWriters} * kPerWriter / 4);
  blocked.Release();
  index->Close();
  f.pool.Drain();
}

#if MEMREP_RUN_POINTS
// The strand makes its big merges without work_mu_: a writer that starts
// helping readers while one runs (the strand began it before there were
// readers) cuts and merges the other runs beside it instead of waiting or
// writing on. The strand's first big merge is held once it has let go of
// work_mu_ (run_points.h) while a reader arrives and the writer goes on, so
// the interleaving comes in every run. Every view stays whole.
TEST(RunIndex, WritersMergeBesideTheStrandsBigMerge) {
  HelpFixture f;
  RunIndexOptions options;
  options.background_cut = 64;  // merges of more than 1024 rows are big
  options.seal_threshold = 1 << 20;
  auto index = std::make_shared<RunIndex>(options, f.order, f.region, f.pool);
  RunPointHold hold(RunPoint::kBigMerge, index.get());
  uint64_t seq = 0;
  // No reader yet (a new index has had none): the strand cuts and merges
  // the rows, a few cuts at a time, until one of its merges is big.
  constexpr uint64_t kMostRows = 1 << 16;
  while (!hold.Held() && seq < kMostRows) {
    f.PushRows(*index, &seq, 256);
    ASSERT_TRUE(testing::WaitUntil([&] { return hold.Held() || index->Unsorted() < 64; }))
        << "the strand did not cut";
  }
  ASSERT_TRUE(hold.Held()) << "no big merge in " << seq << " rows";
  // A reader, and rows: the writer helps at its next background_cut, and
  // merges at its second help (two runs of 64).
  for (int i = 0; i < 64 && index->stats().merges_beside_big.load() == 0; ++i) {
    ASSERT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
    f.PushRows(*index, &seq, 64);
  }
  EXPECT_GT(index->stats().merges_beside_big.load(), 0u) << "no merge was made beside the big one";
  EXPECT_GT(index->stats().writer_helps.load(), 0u);
  EXPECT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
  EXPECT_EQ(hold.timeouts(), 0u) << "the writer waited for the big merge";
  hold.Release();
  ASSERT_TRUE(testing::WaitUntil([&] { return index->NumRuns() == 1; }))
      << "the big merge and the writer's were not merged whole once writes stopped";
  EXPECT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
  index->Close();
  f.pool.Drain();
}
#endif

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
  ASSERT_GT(index->stats().writer_helps.load(), 0u);
  ASSERT_GT(index->NumRuns(), 1u);
  // Three recheck periods with no row: once, the strand merged everything.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  (void)index->Snapshot();
  EXPECT_GT(index->NumRuns(), 1u) << "merged whole while writers were helping readers";
  EXPECT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
  // Once writers stop coming (the reader window), the index is idle: one run.
  EXPECT_TRUE(testing::WaitUntil([&] { return index->NumRuns() == 1; }));
  EXPECT_EQ(HelpFixture::CountView(f.order, index->Snapshot()), seq);
  index->Close();
  f.pool.Drain();
}

}  // namespace
}  // namespace memrep::runs
