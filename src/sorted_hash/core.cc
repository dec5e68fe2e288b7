#include "sorted_hash/core.h"

#include <chrono>

#include "util/background_worker.h"

namespace memrep::sorted_hash {

void Core::Schedule(bool delayed) {
  // relaxed load first: the common "already queued" case stays a shared read.
  if (scheduled_.load(std::memory_order_relaxed) ||
      scheduled_.exchange(true, std::memory_order_acq_rel)) {
    return;
  }
  auto task = [self = shared_from_this()] { self->Background(); };
  if (delayed) {
    util::BackgroundWorker::Shared().SubmitAfter(kRecheckPeriod, std::move(task));
  } else {
    util::BackgroundWorker::Shared().Submit(std::move(task));
  }
}

void Core::Close() {
  std::unique_lock<std::mutex> lock(task_mu_);
  closing_ = true;
  stop_merging_.store(true, std::memory_order_relaxed);
  task_done_.wait(lock, [&] { return !running_; });
}

std::vector<RunSlot> Core::CollectTail(const RunSet& set, const WriteList::Heads& heads) const {
  std::vector<RunSlot> tail;
  WriteList::ForEachBetween(region, heads, set.covered,
                            [&](const Node* n, NodeRef r) {
                              tail.push_back(MakeSlot(order, n->entry(), EntryRef(r)));
                            });
  return tail;
}

Core::Tail Core::BuildTail(const RunSet& set) {
  Tail tail;
  {
    std::lock_guard<std::mutex> lock(tail_mu_);
    tail = tail_cache_;
  }
  // Loaded after the cache was read: each shard's head is the cached one or
  // was pushed after it (heads only move forward).
  const WriteList::Heads heads = write_list.LoadHeads();
  if (tail.covered == set.covered && tail.heads == heads) return tail;
  std::vector<RunSlot> delta;
  if (tail.covered == set.covered) {
    WriteList::ForEachBetween(region, heads, tail.heads,
                              [&](const Node* n, NodeRef r) {
                                delta.push_back(MakeSlot(order, n->entry(), EntryRef(r)));
                              });
  } else {
    delta = CollectTail(set, heads);
    tail = Tail{};
    tail.covered = set.covered;
    tail.covered_entries = set.entries;
  }
  SortSlots(order, &delta);
  tail.heads = heads;
  if (tail.size() + delta.size() >= options.seal_threshold) {
    // Big enough to become a run: built as Seal would and not cached, so the
    // cache never holds more than seal_threshold entries.
    const SortedRun fresh(&region, delta, run_memory);
    std::shared_ptr<const SortedRun> sealed = Seal(tail, &fresh);
    tail.levels.assign(1, std::move(sealed));
    return tail;
  }
  if (!delta.empty()) {
    constexpr auto kWithPrefixes = SortedRun::Layout::kWithPrefixes;
    tail.levels.push_back(std::make_shared<const SortedRun>(&region, delta, run_memory,
                                                               kWithPrefixes));
    // Restore the ratio between levels: the smallest two merge while the
    // smaller is more than 1/kTailRatio of the bigger.
    for (size_t n = tail.levels.size();
         n >= 2 && tail.levels[n - 1]->size() * Tail::kTailRatio > tail.levels[n - 2]->size();
         n = tail.levels.size()) {
      tail.levels[n - 2] = SortedRun::Merge(order, *tail.levels[n - 2], *tail.levels[n - 1],
                                            run_memory, kWithPrefixes);
      tail.levels.pop_back();
    }
  }
  std::lock_guard<std::mutex> lock(tail_mu_);
  // Keep the newest: the tail of a later cut, or more of the same one.
  if (tail_cache_.covered_entries < tail.covered_entries ||
      (tail_cache_.covered == tail.covered && tail_cache_.size() < tail.size())) {
    tail_cache_ = tail;
  }
  return tail;
}

std::shared_ptr<const SortedRun> Core::Seal(const Tail& tail, const SortedRun* more) const {
  // A lone level already in the default layout is the run itself (levels
  // are immutable and shared by reference count).
  if ((more == nullptr || more->size() == 0) && tail.levels.size() == 1 &&
      tail.levels[0]->InDefaultLayout()) {
    return tail.levels[0];
  }
  // Smallest first, so each merge's output is about the size of the next
  // part; the last merge builds the run in the default layout (a lone part
  // in another layout is merged with nothing for that).
  std::vector<const SortedRun*> parts;
  if (more != nullptr && more->size() > 0) parts.push_back(more);
  for (auto it = tail.levels.rbegin(); it != tail.levels.rend(); ++it) parts.push_back(it->get());
  const SortedRun empty(&region, std::vector<RunSlot>{}, run_memory);
  while (parts.size() < 2) parts.push_back(&empty);
  std::shared_ptr<const SortedRun> run;
  for (size_t i = 1; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    run = SortedRun::Merge(order, i == 1 ? *parts[0] : *run, *parts[i], run_memory,
                           last ? SortedRun::Layout::kAuto : SortedRun::Layout::kWithPrefixes);
  }
  return run;
}

Core::View Core::Snapshot() {
  View view;
  // The set first: the heads loaded after it are at or past what it covers.
  view.set = runs.Current();
  view.tail = BuildTail(*view.set);
  if (view.tail.size() >= options.seal_threshold) {
    if (auto published = runs.PublishCut(view.set, Seal(view.tail), view.tail.heads)) {
      const WriteList::Heads heads = view.tail.heads;
      view.set = std::move(published);
      view.tail = Tail{};
      view.tail.covered = view.tail.heads = heads;
    }
  }
  // Ask once per run-set version for background work when this view is not a
  // single array: the worker then merges, or cuts and merges when idle.
  if ((view.set->runs.size() > 1 || view.tail.size() > 0) &&
      nudged_version_.exchange(view.set->version, std::memory_order_relaxed) != view.set->version) {
    Schedule(false);
  }
  return view;
}

void Core::Background() {
  {
    std::lock_guard<std::mutex> lock(task_mu_);
    if (closing_) return;
    running_ = true;
  }
  // release: a request made after this point queues a new task.
  scheduled_.store(false, std::memory_order_release);
  const bool is_frozen = frozen.load(std::memory_order_acquire);
  // Idle: no insert for a whole recheck period (not merely since the last
  // task, which may have run a moment ago between two inserts).
  const bool idle =
      is_frozen || quiet_.Quiet(write_list.Count(), std::chrono::steady_clock::now());
  const bool more = CutAndMerge(idle);
  {
    std::lock_guard<std::mutex> lock(task_mu_);
    running_ = false;
  }
  task_done_.notify_all();
  if (more && !is_frozen) Schedule(true);
}

bool Core::CutAndMerge(bool idle) {
  std::shared_ptr<const RunSet> base = runs.Current();
  // The tail readers have sorted so far is reused: only newer entries are sorted here.
  Tail tail = BuildTail(*base);
  const bool cut = tail.size() > 0 && (idle || tail.size() >= options.background_cut ||
                                        tail.size() >= options.seal_threshold);
  if (cut) {
    // May lose to an iterator that published a cut first: the next task retries.
    runs.PublishCut(base, Seal(tail), tail.heads);
  }
  // Let go of the pre-cut set and tail before merging: holding them would keep
  // runs that merges replace alive, past what MemoryUsage charges for.
  const size_t left = cut ? 0 : tail.size();
  base.reset();
  tail = Tail{};
  std::shared_ptr<const RunSet> set = runs.Current();
  size_t a, b;
  // Idle merging (everything into one run) stops as soon as an insert
  // arrives: otherwise the runs that iterators seal meanwhile would each be
  // merged into the biggest run, one full copy of it per cut.
  const uint64_t count = write_list.Count();
  while (!stop_merging_.load(std::memory_order_relaxed) &&
         PickMerge(*set, options.max_runs, idle && write_list.Count() == count, &a, &b)) {
    const SortedRun* run_a = set->runs[a].get();
    const SortedRun* run_b = set->runs[b].get();
    runs.PublishMerge(run_a, run_b, SortedRun::Merge(order, *run_a, *run_b, run_memory));
    set = runs.Current();
  }
  return set->runs.size() > 1 || left > 0 || set->entries != write_list.Count();
}

}  // namespace memrep::sorted_hash
