// What the run index tests share: an index over a region of its own, and a
// pool whose threads a test can hold so that the strand never runs.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "concurrency/background_pool.h"
#include "memory/arena.h"
#include "runs/merging_cursor.h"
#include "runs/run_index.h"
#include "test_util.h"

namespace memrep::runs {

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
  // Freezes the index, lets the pool run, and waits (testing::WaitUntil) for
  // the strand's whole-index merge; whether it made one run.
  static bool FreezeToOneRun(RunIndex& index, BlockedPool& blocked) {
    index.Freeze();
    blocked.Release();
    return testing::WaitUntil([&] { return index.NumRuns() == 1; });
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

}  // namespace memrep::runs
