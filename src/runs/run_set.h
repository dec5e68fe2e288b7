// RunSet: an immutable snapshot of a RunIndex's sorted runs, and the
// write-list heads up to which they hold every entry.
//
//   RunSet v7: runs {R0: 600k, R1: 250k, R2: 4k}   covered: heads[16]
//              entries pushed after `covered` = the unsorted tail
//
// Thread safety: a RunSet never changes. RunSets are replaced as a whole:
// publishers (a cut or a merge) take RunSetHolder's mutex, build the next set,
// and swap it in under a spin lock that readers take only to copy the
// pointer (Current): a few cycles, so that readers taking views beside
// writers never sleep in the kernel for it (concurrency/spin_lock.h). The
// current version is also published in an atomic, so that a reader can
// notice a new set without any lock (it then takes the set).
// Invariants:
//  1. The runs of a set hold disjoint entries, and together exactly the
//     entries pushed up to `covered` on every shard.
//  2. A new set either adds a run made of the entries between the previous
//     set's `covered` and its own (a cut), or replaces runs by their merge
//     (same covered). Both keep invariant 1.
// Reclamation: sets and runs are reference counted; an iterator keeps the set
// it started from alive, so a merge never frees a run someone still reads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "concurrency/mutex.h"
#include "concurrency/shared_writes.h"
#include "concurrency/spin_lock.h"
#include "runs/sorted_run.h"
#include "runs/write_list.h"

namespace memrep::runs {

struct RunSet {
  std::vector<std::shared_ptr<const SortedRun>> runs;
  WriteList::Heads covered{};
  uint64_t entries = 0;  // sum of run sizes
  uint64_t bytes = 0;    // sum of run bytes()
  uint64_t version = 0;  // increases by one per published set
};

class RunSetHolder {
 public:
  RunSetHolder() : current_(std::make_shared<const RunSet>()) {}

  std::shared_ptr<const RunSet> Current() const {
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kRunSetMutex);
    concurrency::SpinLockHolder lock(&current_mu_);
    return current_;
  }

  // The current set's version, without a lock: a reader compares it with
  // its view's to notice a merge (acquire pairs with the release store after
  // the swap: the set it names is the one Current returns, or a later one).
  uint64_t Version() const { return version_.load(std::memory_order_acquire); }

  // Publishes the current set plus `run`, which holds the entries between
  // base->covered and `covered`, if no other cut was published since `base`
  // (the current set covers what `base` covers: merges since do not matter,
  // as they only replace runs by one holding the same entries). Returns the
  // published set, or nullptr if another cut was published first (the
  // caller keeps its run private).
  std::shared_ptr<const RunSet> PublishCut(const std::shared_ptr<const RunSet>& base,
                                           std::shared_ptr<const SortedRun> run,
                                           const WriteList::Heads& covered);

  // Replaces runs `inputs` of the current set by `merged`. REQUIRES: every
  // input is still in the current set: no other thread merges any of them
  // (the RunIndex picks the runs of a merge under its work_mu_, never one
  // that another merge holds: RunIndex::merging_).
  void PublishMerge(const std::vector<const SortedRun*>& inputs,
                    std::shared_ptr<const SortedRun> merged);

 private:
  // Replaces current_ by `next` (under the spin lock) and publishes its
  // version; the old set is let go after the lock.
  void Swap(std::shared_ptr<const RunSet> next) REQUIRES(publish_mu_);
  // Held by publishers for the whole read-build-swap, so that they never
  // interleave; taken before current_mu_.
  concurrency::Mutex publish_mu_;
  mutable concurrency::SpinLock current_mu_;
  std::shared_ptr<const RunSet> current_ GUARDED_BY(current_mu_);
  // current_->version; stored after the swap. On a cache line of its own:
  // every point read checks it (RunIndex::Current), while each Current()
  // call of another thread (a writer refreshing the tail, a reader renewing
  // its view) writes the spin lock's line, which would take this one with it.
  alignas(concurrency::kCacheLine) std::atomic<uint64_t> version_{0};
};

// Runs within this factor of each other in size are merged.
inline constexpr size_t kMergeRatio = 4;

// The merge the background strand should do next in `set`, as the indexes
// of the runs to merge (at least two), or false if the set is in shape:
// each run more than kMergeRatio times the size of the next smaller one, and
// at most max_runs runs (else the smallest runs are merged, as many as bring
// the count to max_runs, at least two). With `all`, every run at once (one
// pass) while there are two. Runs in `busy` (being merged by another
// thread) are never picked; they count toward max_runs.
bool PickMerge(const RunSet& set, uint32_t max_runs, bool all, std::vector<size_t>* picks,
               const std::vector<const SortedRun*>& busy = {});

}  // namespace memrep::runs
