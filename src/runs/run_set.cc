#include "runs/run_set.h"

#include <algorithm>

#include "memory/block_cache.h"

namespace memrep::runs {

std::shared_ptr<const RunSet> RunSetHolder::PublishCut(const std::shared_ptr<const RunSet>& base,
                                                       std::shared_ptr<const SortedRun> run,
                                                       const WriteList::Heads& covered) {
  auto next = memory::MakeShared<RunSet>();
  next->covered = covered;
  concurrency::MutexLock lock(&publish_mu_);
  // Only publishers replace the set, and they hold publish_mu_.
  const std::shared_ptr<const RunSet> current = Current();
  if (current->covered != base->covered) return nullptr;
  next->runs.reserve(current->runs.size() + 1);
  next->runs = current->runs;
  next->entries = current->entries + run->size();
  next->bytes = current->bytes + run->bytes();
  next->runs.push_back(std::move(run));
  next->version = current->version + 1;
  Swap(next);
  return next;
}

void RunSetHolder::Swap(std::shared_ptr<const RunSet> next) {
  const uint64_t version = next->version;
  {
    concurrency::SpinLockHolder hold(&current_mu_);
    current_.swap(next);
  }
  // release: a reader that loads this version and then takes the set
  // (Current) finds this one or a later one.
  version_.store(version, std::memory_order_release);
  // `next` now holds the old set: let go here, outside the spin lock.
}

void RunSetHolder::PublishMerge(const std::vector<const SortedRun*>& inputs,
                                std::shared_ptr<const SortedRun> merged) {
  concurrency::MutexLock lock(&publish_mu_);
  const std::shared_ptr<const RunSet> current = Current();
  auto next = memory::MakeShared<RunSet>();
  next->runs.reserve(current->runs.size() + 1 - inputs.size());
  next->bytes = merged->bytes();
  for (const auto& run : current->runs) {
    if (std::find(inputs.begin(), inputs.end(), run.get()) == inputs.end()) {
      next->runs.push_back(run);
      next->bytes += run->bytes();
    }
  }
  next->runs.push_back(std::move(merged));
  next->covered = current->covered;
  next->entries = current->entries;
  next->version = current->version + 1;
  Swap(std::move(next));
}

bool PickMerge(const RunSet& set, uint32_t max_runs, bool all, std::vector<size_t>* picks,
               const std::vector<const SortedRun*>& busy) {
  const size_t n = set.runs.size();
  picks->clear();
  // The runs free to merge, by size.
  std::vector<size_t> order;
  order.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (std::find(busy.begin(), busy.end(), set.runs[i].get()) == busy.end()) order.push_back(i);
  }
  const size_t free = order.size();
  if (free < 2) return false;
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return set.runs[x]->size() < set.runs[y]->size(); });
  auto pick = [&](size_t from, size_t count) {
    picks->assign(order.begin() + static_cast<ptrdiff_t>(from),
                  order.begin() + static_cast<ptrdiff_t>(from + count));
    return true;
  };
  if (all) return pick(0, free);
  // The smallest pair of neighbours in size within kMergeRatio: merging
  // small, similar runs first keeps the work per entry logarithmic and the
  // runs few (merging in tiers of four copied a row half as often but kept
  // twice the runs, which seeks right after a fill meet until the idle
  // merge is done: docs/results/2026-11-26-sorted-hash-v2.md).
  for (size_t i = 0; i + 1 < free; ++i) {
    if (set.runs[order[i + 1]]->size() <= kMergeRatio * set.runs[order[i]]->size()) {
      return pick(i, 2);
    }
  }
  // Runs being merged count (their merge leaves one): the smallest free ones
  // bring the count down to max_runs, as far as they can.
  if (n > max_runs) return pick(0, std::min(free, std::max<size_t>(2, n - max_runs + 1)));
  return false;
}

}  // namespace memrep::runs
