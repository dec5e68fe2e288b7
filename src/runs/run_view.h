// What a reader of a RunIndex reads: the runs of a RunSet, the shared tail
// of sorted levels after them, and a level of its own. The rules that build
// them: docs/runs.md.
//
// Thread safety: a SharedTail never changes once published (the tail cache
// and the views that read it share one by reference count); a RunView is
// its holder's alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "memory/block_cache.h"
#include "runs/run_set.h"
#include "runs/sorted_run.h"
#include "runs/write_list.h"

namespace memrep::runs {

// The rows pushed after a run set's `covered` heads up to `heads`, sorted
// into a few runs that keep every prefix (`levels`, biggest first, each more
// than kTailRatio times the next). A snapshot sorts only what was pushed
// since the last one into a new smallest level, then merges the two smallest
// while that ratio is broken. So a row is copied about kTailRatio times per
// level, log_kTailRatio(tail size) levels in all, however often snapshots
// come, and a reader searches a handful of levels. Immutable once published
// (one reference count per view, not one per level).
struct SharedTail {
  static constexpr size_t kTailRatio = 8;
  WriteList::Heads covered{};
  uint64_t covered_entries = 0;  // orders the tails of different cuts
  WriteList::Heads heads{};
  // In the block cache, as the tail itself: readers let go of the last
  // reference to a tail that a writer made.
  std::vector<std::shared_ptr<const SortedRun>,
              memory::BlockAllocator<std::shared_ptr<const SortedRun>>>
      levels;
  size_t size() const {
    size_t n = 0;
    for (const auto& level : levels) n += level->size();
    return n;
  }
};

// What an iterator reads: the runs of a RunSet, the shared tail after it,
// and the reader's own level of the few rows after that (the rows since a
// writer's refresh, or an extension's): neither cached nor shared.
struct RunView {
  std::shared_ptr<const RunSet> set;
  std::shared_ptr<const SharedTail> tail;  // nullptr: no shared level
  std::shared_ptr<const SortedRun> own;    // nullptr: no own level
  WriteList::Heads rows_to{};              // every row up to these heads
  const WriteList::Heads& heads() const { return rows_to; }
  // Rows in the tail's levels and the own level.
  size_t TailSize() const {
    return (tail != nullptr ? tail->size() : 0) + (own != nullptr ? own->size() : 0);
  }
  // fn(const SortedRun*) for each level after the runs: the shared tail's
  // (biggest first), then the own level.
  template <typename Fn>
  void ForEachLevel(Fn&& fn) const {
    if (tail != nullptr) {
      for (const auto& level : tail->levels) fn(level.get());
    }
    if (own != nullptr) fn(own.get());
  }
  // fn(const SortedRun*) for every source of rows: the set's runs, then
  // ForEachLevel's.
  template <typename Fn>
  void ForEachSource(Fn&& fn) const {
    for (const auto& run : set->runs) fn(run.get());
    ForEachLevel(fn);
  }
};

}  // namespace memrep::runs
