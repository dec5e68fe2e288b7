// RunIndex's background work and its policy: the strand's task, the writers'
// share of it while readers are present, and the merges seeks pay for
// (docs/runs.md).
#include <algorithm>
#include <thread>

#include "runs/run_index.h"

namespace memrep::runs {

bool RunIndex::BackgroundWork() {
  MEMREP_RUN_POINT(kStrandStep);
  // A writer is cutting (Help): look again after a recheck period, rather
  // than hold a pool thread waiting for it.
  MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kWorkMutex);
  if (!work_.mu.TryLock()) return true;
  concurrency::MutexLock lock(&work_.mu, std::adopt_lock);
  // Idle: no push for a whole recheck period (not merely since the last
  // task, which may have run a moment ago between two pushes). What throws
  // (out of memory, a custom comparator) published nothing half-way (runs
  // are replaced whole): readers sort what the task could not, and it runs
  // again after a recheck period.
  // While writers help readers, a pause of a recheck period is more likely a
  // writer that lost its core for a while than the end of the writes: the
  // whole-index merge waits until they stop coming (kReaderWindowMs).
  const bool quiet = quiet_.Quiet(Count(), std::chrono::steady_clock::now());
  const bool idle = frozen() || (quiet && !WritersHelping());
  if (!idle && WritersHelping()) {
    // Writers are cutting and merging for readers (Help): the strand leaves
    // them that work. So while readers are present it takes no core from a
    // reader for work a writer does anyway, and never holds work_.mu when a
    // writer comes to help. Look again later: once writes pause, the work
    // is the strand's.
    DropStaleViews();
    return true;
  }
  return CutAndMerge(idle, /*helping=*/false);
}

void RunIndex::Help() {
  bool waited = false;
  // relaxed: a hint for the strand (WritersHelping); stored once per
  // millisecond at most, so that helping writers do not keep writing it.
  const uint64_t now = NowMs();
  if (last_help_ms_.load(std::memory_order_relaxed) != now) {
    last_help_ms_.store(now, std::memory_order_relaxed);
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kIndexFlag);
  }
  MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kWorkMutex);
  if (!work_.mu.TryLock()) {
    // Another thread is cutting: write on while the rows in no run are few;
    // past the bound, wait for it and then cut what it left, if still many.
    if (Unsorted() < HelpBound()) return;
    RunIndexStats::Add(stats_.writer_waits);
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kWorkWait);
    work_.mu.Lock();
    waited = true;
  }
  concurrency::MutexLock lock(&work_.mu, std::adopt_lock);
  if (waited && Unsorted() < HelpBound()) return;
  RunIndexStats::Add(stats_.writer_helps);
  MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kIndexFlag);
  try {
    (void)CutAndMerge(/*idle=*/false, /*helping=*/true);
  } catch (...) {
    // Out of memory, or a custom comparator that threw: nothing was
    // published half-way; readers and the strand sort these rows later.
  }
}

void RunIndex::RefreshTail() {
  // acquire/release: only a flag that one writer at a time refreshes; the
  // tail itself is exchanged under tail_mu_.
  MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kIndexFlag);
  if (refreshing_.exchange(true, std::memory_order_acquire)) return;
  RunIndexStats::Add(stats_.tail_refreshes);
  MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kIndexFlag,
                            2);  // the count, the flag's clear
  try {
    std::shared_ptr<const RunSet> set = runs_.Current();
    if (ManyUnsorted(*set)) {
      MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kSortMutex);
      concurrency::MutexLock lock(&sort_mu_);  // as in Snapshot: sorted once
      set.reset();
      (void)CutView(runs_.Current(), /*reader=*/false);
    } else {
      (void)CutView(std::move(set), /*reader=*/false);
    }
  } catch (...) {
    // Out of memory, or a custom comparator that threw: readers sort these rows.
  }
  refreshing_.store(false, std::memory_order_release);
}

size_t RunIndex::Cut(bool idle, bool helping, std::shared_ptr<const RunSet> base) {
  // The tail readers have sorted so far is reused: only newer rows are sorted here.
  View view;
  view.set = std::move(base);
  BuildTail(view, task_.cancel_flag());
  const size_t size = view.TailSize();  // no own level: BuildTail for no reader
  const bool cut = size > 0 && (idle || helping || size >= options_.background_cut ||
                                size >= options_.seal_threshold);
  if (cut) {
    // May lose to an iterator that published a cut first: the next task retries.
    (void)runs_.PublishCut(view.set, Seal(*view.tail, nullptr, LayoutFor(idle), FilterFor(idle)),
                           view.heads());
    NoteSet();
  }
  return cut ? 0 : size;
}

bool RunIndex::WritersBusy() {
  static const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::array<uint64_t, WriteList::kShards> counts = write_list_.ShardCounts();
  size_t writers = 0;
  for (size_t i = 0; i < counts.size(); ++i) writers += counts[i] != work_.last_counts[i] ? 1 : 0;
  work_.last_counts = counts;
  return writers >= cores;
}

bool RunIndex::DropStaleViews() {
  bool skipped = false;
  readers_.ForEach([&](ReaderSlot& slot) {
    // acquire/release: as in WithReadView, whose owner this briefly is.
    if (slot.busy.exchange(true, std::memory_order_acquire)) {
      skipped = true;
      return;
    }
    if (slot.view.set != nullptr && !Current(slot.view)) slot.view = View{};
    slot.busy.store(false, std::memory_order_release);
  });
  return skipped;
}

namespace {
// The rows of the runs of `set` at `picks`.
uint64_t PickedRows(const RunSet& set, const std::vector<size_t>& picks) {
  uint64_t rows = 0;
  for (size_t i : picks) rows += set.runs[i]->size();
  return rows;
}
}  // namespace

bool RunIndex::CutAndMerge(bool idle, bool helping) {
  // Writers holding every core: no cut (readers sort what they need, and
  // writers help them: Help), and merges only to keep the runs readers
  // sealed within max_runs.
  const bool yielding = !helping && options_.yield_to_writers && !idle && WritersBusy();
  // The pre-cut set and tail are let go before merging (Cut returns): holding
  // them would keep runs that merges replace alive, past what MemoryUsage
  // charges for.
  size_t left = 0;
  if (!yielding) {
    std::shared_ptr<const RunSet> base = runs_.Current();
    if (ManyUnsorted(*base)) {
      MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kSortMutex);
      concurrency::MutexLock lock(&sort_mu_);  // as in Snapshot
      base.reset();
      left = Cut(idle, helping, runs_.Current());
    } else {
      left = Cut(idle, helping, std::move(base));
    }
  }
  std::shared_ptr<const RunSet> set = runs_.Current();
  std::vector<size_t> picks;
  // Idle merging (everything into one run) stops as soon as a push arrives:
  // otherwise the runs that iterators seal meanwhile would each be merged
  // into the biggest run, one full copy of it per cut.
  const uint64_t count = Count();
  while (!task_.cancelled() && (!yielding || set->runs.size() > options_.max_runs) &&
         PickMerge(*set, options_.max_runs, idle && Count() == count, &picks, work_.merging)) {
    if (!MergePicks(picks, idle, helping, &set)) return false;
  }
  // Merges the seeks pay for: while iterators seek beside writers, each seek
  // searches every run, so runs below the biggest are merged into one as far
  // as the searches saved since the last step pay for the rows copied.
  // (No reader: no slot to sum, nothing to pay for. Off by the options:
  // none.)
  if (options_.seek_merges && !yielding && !idle && ReadersPresent()) {
    const uint64_t seeks = SeeksSoFar();
    work_.seek_credit =
        std::min(work_.seek_credit + (seeks - work_.seeks_seen) * kSeekMergeRows, Count());
    work_.seeks_seen = seeks;
    while (!task_.cancelled() && set->runs.size() > kSeekRuns &&
           PickMerge(*set, kSeekRuns, false, &picks, work_.merging)) {
      const uint64_t rows = PickedRows(*set, picks);
      if (rows > work_.seek_credit) break;
      work_.seek_credit -= rows;
      if (!MergePicks(picks, idle, helping, &set)) return false;
      RunIndexStats::Add(stats_.seek_merges);
    }
  }
  // The runs a merge replaced stay alive while a reader slot holds a view of
  // them: let them go (a writer's help leaves this to the strand).
  // A slot in use may be storing a view of the runs just replaced: look
  // again after a recheck period, or it would keep them until the next write.
  const bool slots_in_use = !helping && DropStaleViews();
  return set->runs.size() > 1 || left > 0 || set->entries != Count() || slots_in_use;
}

bool RunIndex::MergePicks(const std::vector<size_t>& picks, bool idle, bool helping,
                          std::shared_ptr<const RunSet>* set) {
  std::vector<const SortedRun*> inputs;
  for (size_t i : picks) inputs.push_back((*set)->runs[i].get());
  const uint64_t rows = PickedRows(**set, picks);
  // The strand makes a big merge without work_.mu: its inputs stay in the
  // set (readers search them) and out of other merges (work_.merging), and a
  // writer that comes to help meanwhile cuts and merges the other runs,
  // so the runs stay few however long the big merge takes on a machine
  // whose cores the writers and readers hold. (A writer merges holding
  // work_.mu: it helps readers, who want few runs soon.)
  std::shared_ptr<const SortedRun> merged;
  MEMREP_RUN_POINT(kMerge);
  if (!helping && !frozen() && rows > BigMergeRows()) {
    work_.merging = inputs;
    work_.mu.Unlock();
    MEMREP_RUN_POINT(kBigMerge);
    try {
      merged = MergeRuns(inputs, idle);
    } catch (...) {
      work_.mu.Lock();
      work_.merging.clear();
      throw;
    }
    work_.mu.Lock();
    work_.merging.clear();
  } else {
    merged = MergeRuns(inputs, idle);
  }
  if (merged == nullptr) {  // cancelled: the index is closing
    RunIndexStats::Add(stats_.merges_cancelled);
    return false;
  }
  runs_.PublishMerge(inputs, std::move(merged));
  NoteSet();
  if (!work_.merging.empty()) RunIndexStats::Add(stats_.merges_beside_big);
  *set = runs_.Current();
  return true;
}

uint64_t RunIndex::SeeksSoFar() const {
  uint64_t seeks = 0;
  readers_.ForEach(
      [&](const ReaderSlot& slot) { seeks += slot.seeks.load(std::memory_order_relaxed); });
  return seeks;
}

std::shared_ptr<const SortedRun> RunIndex::MergeRuns(const std::vector<const SortedRun*>& inputs,
                                                     bool idle) const {
  return inputs.size() == 2
             ? SortedRun::Merge(order_, *inputs[0], *inputs[1], run_memory_, LayoutFor(idle),
                                task_.cancel_flag(), FilterFor(idle))
             : SortedRun::MergeAll(order_, inputs, run_memory_, LayoutFor(idle),
                                   task_.cancel_flag(), FilterFor(idle));
}

}  // namespace memrep::runs
