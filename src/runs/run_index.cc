#include "runs/run_index.h"

#include <algorithm>
#include <new>
#include <random>
#include <thread>

#include "memory/block_cache.h"

namespace memrep::runs {

RunIndex::RunIndex(const RunIndexOptions& options, const format::KeyOrder& order,
                   const RowRegion& region, concurrency::BackgroundPool& pool)
    : options_(options),
      order_(order),
      region_(region),
      write_list_(options.background_cut),
      filter_(options.point_filters && order.kind() != format::KeyOrder::Kind::kCustom
                  ? SortedRun::Filter::kPoint
                  : SortedRun::Filter::kNone),
      pool_(pool),
      task_(pool, kRecheckPeriod) {}

RunIndex::~RunIndex() {
  readers_.ForEach([](ReaderSlot& slot) { (void)slot.busy.load(std::memory_order_acquire); });
  (void)runs_.Current();  // its spin lock
  { concurrency::SpinLockHolder lock(&tail_mu_); }
  { concurrency::MutexLock lock(&work_mu_); }
  { concurrency::MutexLock lock(&sort_mu_); }
}

void RunIndex::Freeze() {
  // release: background tasks that see the flag also see every push before it.
  frozen_.store(true, std::memory_order_release);
  Schedule(false);
}

void RunIndex::NoteSet() {
  const std::shared_ptr<const RunSet> set = runs_.Current();
  std::shared_ptr<const Tail> old;  // let go after the lock
  {
    // A cached tail of rows a run now holds is never reused (BuildTail
    // starts over from the new set): let its memory go now.
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kTailMutex);
    concurrency::SpinLockHolder lock(&tail_mu_);
    if (tail_cache_ != nullptr && tail_cache_->covered_entries < set->entries) {
      old = std::move(tail_cache_);
      tail_bytes_.store(0, std::memory_order_relaxed);
    }
  }
  // relaxed: ChargedBytes reads them as an estimate (see their declaration).
  set_entries_.store(set->entries, std::memory_order_relaxed);
  set_bytes_.store(set->bytes, std::memory_order_relaxed);
}

uint64_t RunIndex::ChargedBytes() const {
  // relaxed throughout: a statistic; the CAS only keeps charged_ a maximum.
  const uint64_t n = Count();
  if (charged_at_count_.load(std::memory_order_relaxed) != n) {
    const uint64_t in_runs = set_entries_.load(std::memory_order_relaxed);
    const uint64_t bytes = set_bytes_.load(std::memory_order_relaxed) +
                           tail_bytes_.load(std::memory_order_relaxed) +
                           UnsortedCharge(filter_) * (n > in_runs ? n - in_runs : 0);
    uint64_t charged = charged_.load(std::memory_order_relaxed);
    while (bytes > charged &&
           !charged_.compare_exchange_weak(charged, bytes, std::memory_order_relaxed)) {
    }
    charged_at_count_.store(n, std::memory_order_relaxed);
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kChargedAt);
  }
  return charged_.load(std::memory_order_relaxed);
}

std::shared_ptr<const RunIndex::Tail> RunIndex::CachedTail() const {
  MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kTailMutex);
  concurrency::SpinLockHolder lock(&tail_mu_);
  return tail_cache_;
}

void RunIndex::BuildTail(View& view, const std::atomic<bool>* cancel, bool reader) {
  const RunSet& set = *view.set;
  std::shared_ptr<const Tail> cached = CachedTail();
  // Loaded after the cache was read: each shard's head is the cached one or
  // was pushed after it (heads only move forward).
  const WriteList::Heads heads = write_list_.LoadHeads();
  view.own = nullptr;
  view.rows_to = heads;
  const bool follows = cached != nullptr && cached->covered == set.covered;
  if (follows && cached->heads == heads) {
    view.tail = std::move(cached);
    return;
  }
  // The new rows' references first (4 bytes each): a delta too big for the
  // tail is sorted in pieces from them, never as one array of slots.
  std::vector<RowRef> delta;
  WriteList::ForEachBetween(region_, heads, follows ? cached->heads : set.covered,
                            [&](RowRef r) { delta.push_back(r); });
  if (reader) MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kRowsWalked, delta.size());
  if (!follows) cached = nullptr;
  const size_t before = cached != nullptr ? cached->size() : 0;
  if (reader && !delta.empty() && delta.size() <= kPrivateTailMax &&
      before + delta.size() < options_.seal_threshold) {
    // A few rows since a writer's refresh: this view's own level, scratch
    // that no counter holds (no shared cache line written for it: a reader
    // beside a writer takes one such level per view).
    std::vector<RunSlot> slots;
    slots.reserve(delta.size());
    for (RowRef r : delta) slots.push_back(MakeSlot(order_, region_, r));
    view.tail = std::move(cached);
    view.own = OwnLevel(std::move(slots));
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kOwnLevel);
    return;
  }
  auto tail = memory::MakeShared<Tail>();
  if (cached != nullptr) {
    *tail = *cached;
  } else {
    tail->covered = set.covered;
    tail->covered_entries = set.entries;
  }
  tail->heads = heads;
  if (before + delta.size() >= options_.seal_threshold) {
    // Big enough to become a run: built as Seal would and not cached, so the
    // cache never holds more than seal_threshold rows.
    const std::shared_ptr<const SortedRun> fresh = SortMany(std::move(delta), cancel);
    if (fresh == nullptr) throw Cancelled();
    std::shared_ptr<const SortedRun> sealed =
        Seal(*tail, fresh.get(), options_.run_layout, filter_);
    tail->levels.assign(1, std::move(sealed));
    view.tail = std::move(tail);
    return;
  }
  if (!delta.empty()) {
    std::vector<RunSlot> slots;
    slots.reserve(delta.size());
    for (RowRef r : delta) slots.push_back(MakeSlot(order_, region_, r));
    SortSlots(order_, &slots);
    constexpr auto kWithPrefixes = SortedRun::Layout::kWithPrefixes;
    // While readers are present, the levels carry the point filter of the
    // published runs (where the rep asked for one), so that a Get skips the
    // levels that cannot hold its key as it skips runs; with no reader they
    // are built as before.
    const SortedRun::Filter filter = FilterFor(/*idle=*/false);
    auto& levels = tail->levels;
    levels.push_back(
        memory::MakeShared<SortedRun>(&region_, slots, run_memory_, kWithPrefixes, filter));
    // Restore the ratio between levels: the smallest two merge while the
    // smaller is more than 1/kTailRatio of the bigger.
    for (size_t n = levels.size();
         n >= 2 && levels[n - 1]->size() * Tail::kTailRatio > levels[n - 2]->size();
         n = levels.size()) {
      levels[n - 2] = SortedRun::Merge(order_, *levels[n - 2], *levels[n - 1], run_memory_,
                                       kWithPrefixes, /*cancel=*/nullptr, filter);
      levels.pop_back();
    }
  }
  uint64_t bytes = 0;
  for (const auto& level : tail->levels) bytes += level->bytes();
  const size_t size = tail->size();
  std::shared_ptr<const Tail> replaced;  // let go after the lock
  {
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kTailMutex);
    concurrency::SpinLockHolder lock(&tail_mu_);
    // Keep the newest: the tail of a later cut, or more of the same one.
    if (tail_cache_ == nullptr || tail_cache_->covered_entries < tail->covered_entries ||
        (tail_cache_->covered == tail->covered && tail_cache_->size() < size)) {
      replaced = std::move(tail_cache_);
      tail_cache_ = tail;
      tail_bytes_.store(bytes, std::memory_order_relaxed);
    }
  }
  view.tail = std::move(tail);
}

std::shared_ptr<const SortedRun> RunIndex::SortMany(std::vector<RowRef> refs,
                                                    const std::atomic<bool>* cancel) const {
  // Pieces of seal_threshold rows, each sorted as slots (24 bytes a row, for
  // one piece per thread at a time) into a run; then merged, up to
  // kOnePassPieces at a time in one pass, level by level, each merge's
  // inputs freed as it ends; pieces and merges run in parallel on idle pool
  // threads. Up to kPrefixedSortMax rows, the pieces and the levels keep
  // every prefix (12 bytes a row), so the merges compare prefixes and read
  // no row while prefixes differ (a row read is a cache miss: a background
  // cut of many rows, when the strand falls behind fast writers, is mostly
  // these); beyond, they keep fences (6 bytes a row), so that sorting a
  // frozen memtable's millions of unsorted rows at once takes little more
  // memory than its result. Either way this is scratch, not charged: the
  // run that results is.
  const size_t piece = std::max<size_t>(options_.seal_threshold, 1);
  const size_t pieces = (refs.size() + piece - 1) / piece;
  const SortedRun::Layout between = refs.size() <= kPrefixedSortMax
                                        ? SortedRun::Layout::kWithPrefixes
                                        : SortedRun::Layout::kFenced;
  const SortedRun::Layout piece_layout = pieces == 1 ? options_.run_layout : between;
  std::vector<std::shared_ptr<const SortedRun>> runs(pieces);
  const bool sorted = pool_.ParallelFor(
      pieces, 1,
      [&](size_t begin, size_t end) {
        std::vector<RunSlot> slots;
        for (size_t i = begin; i < end; ++i) {
          slots.clear();
          for (size_t k = i * piece; k < std::min(refs.size(), (i + 1) * piece); ++k) {
            slots.push_back(MakeSlot(order_, region_, refs[k]));
          }
          SortSlots(order_, &slots);
          runs[i] = memory::MakeShared<SortedRun>(&region_, slots, run_memory_, piece_layout);
        }
      },
      cancel);
  if (!sorted) return nullptr;
  refs = std::vector<RowRef>();  // the merges may use its room
  // Levels of merges of up to kOnePassPieces runs each.
  while (runs.size() > 1) {
    const bool last = runs.size() <= kOnePassPieces;
    const size_t groups = (runs.size() + kOnePassPieces - 1) / kOnePassPieces;
    std::vector<std::shared_ptr<const SortedRun>> merged(groups);
    const bool done = pool_.ParallelFor(
        groups, 1,
        [&](size_t begin, size_t end) {
          for (size_t g = begin; g < end; ++g) {
            const size_t from = g * kOnePassPieces;
            const size_t to = std::min(runs.size(), from + kOnePassPieces);
            if (to - from == 1) {
              merged[g] = runs[from];
              continue;
            }
            std::vector<const SortedRun*> parts;
            for (size_t i = from; i < to; ++i) parts.push_back(runs[i].get());
            merged[g] = SortedRun::MergeAll(order_, parts, run_memory_,
                                            last ? options_.run_layout : between, cancel);
            for (size_t i = from; i < to; ++i) runs[i].reset();
          }
        },
        cancel);
    if (!done) return nullptr;
    for (const auto& run : merged) {
      if (run == nullptr) return nullptr;  // a merge saw the cancel
    }
    runs = std::move(merged);
  }
  return runs.empty() ? nullptr : runs[0];
}

std::shared_ptr<const SortedRun> RunIndex::Seal(const Tail& tail, const SortedRun* more,
                                                SortedRun::Layout layout,
                                                SortedRun::Filter filter) const {
  // A lone level already in the layout is the run itself (levels are
  // immutable and shared by reference count).
  if ((more == nullptr || more->size() == 0) && tail.levels.size() == 1 &&
      tail.levels[0]->InLayout(layout) &&
      tail.levels[0]->filtered() == (filter == SortedRun::Filter::kPoint)) {
    return tail.levels[0];
  }
  // Smallest first, so each merge's output is about the size of the next
  // part; the last merge builds the run in the runs' layout (a lone part
  // in another layout is merged with nothing for that).
  std::vector<const SortedRun*> parts;
  if (more != nullptr && more->size() > 0) parts.push_back(more);
  for (auto it = tail.levels.rbegin(); it != tail.levels.rend(); ++it) parts.push_back(it->get());
  const SortedRun empty(&region_, std::vector<RunSlot>{}, run_memory_);
  while (parts.size() < 2) parts.push_back(&empty);
  std::shared_ptr<const SortedRun> run;
  for (size_t i = 1; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    run = SortedRun::Merge(order_, i == 1 ? *parts[0] : *run, *parts[i], run_memory_,
                           last ? layout : SortedRun::Layout::kWithPrefixes, nullptr,
                           last ? filter : SortedRun::Filter::kNone);
  }
  return run;
}

RunIndex::View RunIndex::Snapshot(std::shared_ptr<const RunSet> current) {
  NoteReader();
  // The set first: the heads loaded after it are at or past what it covers.
  // A set whose version is the current one (acquire: as Current's mutex) is
  // the current set: versions grow with every publication.
  std::shared_ptr<const RunSet> set = current != nullptr && current->version == runs_.Version()
                                          ? std::move(current)
                                          : runs_.Current();
  current.reset();
  View view;
  if (ManyUnsorted(*set)) {
    // Sorted once: a reader that finds another sorting them waits, then
    // starts from the set that one published.
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kSortMutex);
    concurrency::MutexLock lock(&sort_mu_);
    view = CutView(runs_.Current(), /*reader=*/true);
  } else {
    view = CutView(std::move(set), /*reader=*/true);
  }
  // Ask once per run-set version for background work when this view is not a
  // single array: the strand then merges, or cuts and merges when idle.
  // The load first: a reader beside writers takes a view per Seek, mostly of
  // a version it has already nudged, and a load leaves the line shared.
  if ((view.set->runs.size() > 1 || view.TailSize() > 0) &&
      nudged_version_.load(std::memory_order_relaxed) != view.set->version &&
      nudged_version_.exchange(view.set->version, std::memory_order_relaxed) != view.set->version) {
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kIndexFlag);
    Schedule(false);
  }
  return view;
}

bool RunIndex::Extend(View& view, const WriteList::Heads& heads) {
  if (heads == view.heads()) return true;
  const SortedRun* own = view.own.get();
  const size_t kept = own == nullptr ? 0 : own->size();
  if (kept >= kPrivateTailMax) return false;
  std::vector<RunSlot> slots;
  slots.reserve(kPrivateTailMax);
  if (!WriteList::ForAtMostBetween(
          region_, heads, view.heads(), kPrivateTailMax - kept,
          [&](RowRef r) { slots.push_back(MakeSlot(order_, region_, r)); })) {
    return false;  // many rows: the shared tail that writers refresh has most of them sorted
  }
  MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kRowsWalked, slots.size());
  // A tail that reaches seal_threshold is published as a run, for all
  // readers: Snapshot's work (CutView).
  if (view.TailSize() + slots.size() >= options_.seal_threshold) return false;
  // The new rows sorted, then merged with the own level's (already in
  // order; prefixes kept: no row read for them): a re-sort of all of them
  // would compare the kept rows again, reading rows wherever prefixes tie
  // (hot keys' versions).
  SortSlots(order_, &slots);
  const size_t fresh = slots.size();
  for (size_t i = 0; i < kept; ++i) {  // within the reserved kPrivateTailMax
    slots.push_back(RunSlot{own->PrefixAt(order_, i), own->row(i), own->ref(i)});
  }
  std::inplace_merge(
      slots.begin(), slots.begin() + static_cast<std::ptrdiff_t>(fresh), slots.end(),
      [this](const RunSlot& a, const RunSlot& b) { return CompareSlots(order_, a, b) < 0; });
  NoteReader();
  std::shared_ptr<const SortedRun> level = OwnLevel(std::move(slots), /*sorted=*/true);
  MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kOwnLevel);
  // Only the own level changes: the set and the shared tail stay, their
  // counts untouched.
  view.own = std::move(level);
  view.rows_to = heads;
  return true;
}

std::shared_ptr<const SortedRun> RunIndex::OwnLevel(std::vector<RunSlot> slots, bool sorted) const {
  if (!sorted) SortSlots(order_, &slots);
  // No counter: building it writes no cache line other threads write.
  return memory::MakeShared<SortedRun>(&region_, slots, nullptr, SortedRun::Layout::kWithPrefixes);
}

RunIndex::View RunIndex::CutView(std::shared_ptr<const RunSet> set, bool reader) {
  View view;
  view.set = std::move(set);
  BuildTail(view, nullptr, reader);
  if (view.own == nullptr && view.tail != nullptr && view.tail->size() >= options_.seal_threshold) {
    if (auto published = runs_.PublishCut(
            view.set, Seal(*view.tail, nullptr, options_.run_layout, filter_), view.heads())) {
      view.set = std::move(published);
      view.tail = nullptr;  // the new run holds every row up to view.heads()
      NoteSet();
    }
  }
  return view;
}

bool RunIndex::BackgroundWork() {
  MEMREP_RUN_POINT(kStrandStep);
  // A writer is cutting (Help): look again after a recheck period, rather
  // than hold a pool thread waiting for it.
  MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kWorkMutex);
  if (!work_mu_.TryLock()) return true;
  concurrency::MutexLock lock(&work_mu_, std::adopt_lock);
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
    // reader for work a writer does anyway, and never holds work_mu_ when a
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
  if (!work_mu_.TryLock()) {
    // Another thread is cutting: write on while the rows in no run are few;
    // past the bound, wait for it and then cut what it left, if still many.
    if (Unsorted() < HelpBound()) return;
    writer_waits_.fetch_add(1, std::memory_order_relaxed);
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kWorkWait);
    work_mu_.Lock();
    waited = true;
  }
  concurrency::MutexLock lock(&work_mu_, std::adopt_lock);
  if (waited && Unsorted() < HelpBound()) return;
  writer_helps_.fetch_add(1, std::memory_order_relaxed);
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
  tail_refreshes_.fetch_add(1, std::memory_order_relaxed);
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
  for (size_t i = 0; i < counts.size(); ++i) writers += counts[i] != last_counts_[i] ? 1 : 0;
  last_counts_ = counts;
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
         PickMerge(*set, options_.max_runs, idle && Count() == count, &picks, merging_)) {
    if (!MergePicks(picks, idle, helping, &set)) return false;
  }
  // Merges the seeks pay for: while iterators seek beside writers, each seek
  // searches every run, so runs below the biggest are merged into one as far
  // as the searches saved since the last step pay for the rows copied.
  // (No reader: no slot to sum, nothing to pay for. Off by the options:
  // none.)
  if (options_.seek_merges && !yielding && !idle && ReadersPresent()) {
    const uint64_t seeks = SeeksSoFar();
    seek_credit_ = std::min(seek_credit_ + (seeks - seeks_seen_) * kSeekMergeRows, Count());
    seeks_seen_ = seeks;
    while (!task_.cancelled() && set->runs.size() > kSeekRuns &&
           PickMerge(*set, kSeekRuns, false, &picks, merging_)) {
      const uint64_t rows = PickedRows(*set, picks);
      if (rows > seek_credit_) break;
      seek_credit_ -= rows;
      if (!MergePicks(picks, idle, helping, &set)) return false;
      seek_merges_.fetch_add(1, std::memory_order_relaxed);
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
  // The strand makes a big merge without work_mu_: its inputs stay in the
  // set (readers search them) and out of other merges (merging_), and a
  // writer that comes to help meanwhile cuts and merges the other runs,
  // so the runs stay few however long the big merge takes on a machine
  // whose cores the writers and readers hold. (A writer merges holding
  // work_mu_: it helps readers, who want few runs soon.)
  std::shared_ptr<const SortedRun> merged;
  MEMREP_RUN_POINT(kMerge);
  if (!helping && !frozen() && rows > BigMergeRows()) {
    merging_ = inputs;
    work_mu_.Unlock();
    MEMREP_RUN_POINT(kBigMerge);
    try {
      merged = MergeRuns(inputs, idle);
    } catch (...) {
      work_mu_.Lock();
      merging_.clear();
      throw;
    }
    work_mu_.Lock();
    merging_.clear();
  } else {
    merged = MergeRuns(inputs, idle);
  }
  if (merged == nullptr) {  // cancelled: the index is closing
    merges_cancelled_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  runs_.PublishMerge(inputs, std::move(merged));
  NoteSet();
  if (!merging_.empty()) merges_beside_big_.fetch_add(1, std::memory_order_relaxed);
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

uint64_t RunIndex::CountBetween(std::string_view start, std::string_view end) const {
  const std::shared_ptr<const RunSet> set = runs_.Current();
  const Target from(order_, start), to(order_, end);
  uint64_t in_range = 0;
  for (const auto& run : set->runs) {
    const size_t lo = run->LowerBound(order_, from);
    const size_t hi = run->LowerBound(order_, to);
    if (hi > lo) in_range += hi - lo;
  }
  // Rows not yet in a run are few (the strand cuts them every few
  // milliseconds): count them one by one.
  WriteList::ForEachBetween(region_, write_list_.LoadHeads(), set->covered, [&](RowRef r) {
    const char* row = region_.Row(r);
    if (order_.CompareRowToKey(row, start) >= 0 && order_.CompareRowToKey(row, end) < 0) {
      ++in_range;
    }
  });
  return in_range;
}

size_t RunIndex::RunBytes() const {
  return static_cast<size_t>(std::max<int64_t>(run_memory_->load(std::memory_order_relaxed), 0));
}

Status RunIndex::RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const {
  try {
    std::vector<const char*> all;
    ForEach([&](RowRef r) { all.push_back(region_.Row(r)); });
    if (target < all.size()) {
      // A partial Fisher-Yates shuffle: the first `target` slots become a uniform sample.
      std::mt19937_64 rng(seed);
      for (size_t i = 0; i < target; ++i) {
        std::uniform_int_distribution<size_t> pick(i, all.size() - 1);
        std::swap(all[i], all[pick(rng)]);
      }
      all.resize(target);
    }
    out->insert(out->end(), all.begin(), all.end());
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not allocate a random sample of the memtable");
  }
  return Status::OK();
}

void RunIndex::GetRowsWithoutMemory(std::string_view internal_key, void* arg,
                                    bool (*callback)(void*, const char*)) const {
  // The set first: heads loaded after it are at or past what it covers.
  const std::shared_ptr<const RunSet> set = runs_.Current();
  const WriteList::Heads heads = write_list_.LoadHeads();
  // `bound` is the row last handed out (nullptr: none yet, and the search
  // starts at internal_key). Each round hands out the smallest row past it.
  const char* bound = nullptr;
  for (;;) {
    const char* best = nullptr;
    auto consider = [&](const char* row) {
      const bool past = bound == nullptr ? order_.CompareRowToKey(row, internal_key) >= 0
                                         : order_.CompareRows(row, bound) > 0;
      if (past && (best == nullptr || order_.CompareRows(row, best) < 0)) best = row;
    };
    for (const auto& run : set->runs) {
      size_t i;
      if (bound == nullptr) {
        i = run->LowerBound(order_, Target(order_, internal_key));
      } else {
        uint64_t tag;
        const std::string_view user = format::RowUserKey(bound, &tag);
        // The bound's internal key: its user key is followed by its tag in the row.
        const std::string_view key(user.data(), user.size() + 8);
        i = run->UpperBound(order_, Target(order_, key));
      }
      if (i < run->size()) consider(run->row(i));
    }
    WriteList::ForEachBetween(region_, heads, set->covered,
                              [&](RowRef r) { consider(region_.Row(r)); });
    if (best == nullptr || !callback(arg, best)) return;
    bound = best;
  }
}

}  // namespace memrep::runs
