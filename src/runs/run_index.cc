#include "runs/run_index.h"

#include <algorithm>

#include "memory/block_cache.h"
#include "runs/sort_many.h"

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
  { concurrency::MutexLock lock(&work_.mu); }
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
    const std::shared_ptr<const SortedRun> fresh =
        SortMany(SortManyInputs{order_, region_, pool_, run_memory_, options_.seal_threshold,
                                options_.run_layout},
                 std::move(delta), cancel);
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

}  // namespace memrep::runs
