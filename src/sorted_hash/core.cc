#include "sorted_hash/core.h"

#include <chrono>

#include "util/background_worker.h"

namespace memrep::sorted_hash {
namespace {
// How often the worker looks again while a rep has unsorted entries or
// several runs: once nothing arrives for a period, the rep is made one run.
constexpr std::chrono::milliseconds kRecheckPeriod{10};
}  // namespace

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
  WriteList::ForEachBetween(heads, set.covered,
                            [&](const Node* n) { tail.push_back(MakeSlot(order, n->entry())); });
  return tail;
}

Core::View Core::Snapshot() {
  View view;
  view.set = runs.Current();
  view.heads = write_list.LoadHeads();
  std::vector<RunSlot> slots = CollectTail(*view.set, view.heads);
  if (!slots.empty()) {
    SortSlots(order, &slots);
    auto run = std::make_shared<const SortedRun>(slots, run_memory);
    std::shared_ptr<const RunSet> published;
    if (run->size() >= options.seal_threshold) published = runs.PublishCut(view.set, run, view.heads);
    if (published != nullptr) {
      view.set = std::move(published);
    } else {
      view.tail = std::move(run);
    }
  }
  // Ask once per run-set version for background work when this view is not a
  // single array: the worker then merges, or cuts and merges when idle.
  if ((view.set->runs.size() > 1 || view.tail != nullptr) &&
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
  const uint64_t count = write_list.Count();
  const bool idle = is_frozen || count == last_seen_count_;
  last_seen_count_ = count;
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
  const WriteList::Heads heads = write_list.LoadHeads();
  std::vector<RunSlot> slots = CollectTail(*base, heads);
  if (!slots.empty() && (idle || slots.size() >= options.seal_threshold)) {
    SortSlots(order, &slots);
    // May lose to an iterator that published a cut first: the next task retries.
    runs.PublishCut(base, std::make_shared<const SortedRun>(slots, run_memory), heads);
    slots.clear();
  }
  // Let go of the pre-cut set before merging: holding it would keep runs that
  // merges replace alive, past the two copies that MemoryUsage charges for.
  base.reset();
  std::shared_ptr<const RunSet> set = runs.Current();
  size_t a, b;
  while (!stop_merging_.load(std::memory_order_relaxed) &&
         PickMerge(*set, options.max_runs, idle, &a, &b)) {
    const SortedRun* run_a = set->runs[a].get();
    const SortedRun* run_b = set->runs[b].get();
    runs.PublishMerge(run_a, run_b, SortedRun::Merge(order, *run_a, *run_b, run_memory));
    set = runs.Current();
  }
  return set->runs.size() > 1 || !slots.empty() || set->entries != write_list.Count();
}

}  // namespace memrep::sorted_hash
