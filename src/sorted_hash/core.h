// Core: the part of a sorted hash rep that background tasks share: the write
// list, the run sets and the task bookkeeping. It is reference counted so a
// task queued on the shared worker can outlive the rep safely (it then sees
// `closing` and returns without touching any entry).
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "format/key_order.h"
#include "memrep/sorted_hash.h"
#include "sorted_hash/run_set.h"
#include "sorted_hash/write_list.h"

namespace memrep::sorted_hash {

class Core : public std::enable_shared_from_this<Core> {
 public:
  Core(const SortedHashOptions& options, const UserKeyComparator* comparator)
      : options(options), order(comparator) {}

  const SortedHashOptions options;
  const format::KeyOrder order;
  WriteList write_list;
  RunSetHolder runs;
  const MemoryCounter run_memory = std::make_shared<std::atomic<int64_t>>(0);
  std::atomic<bool> frozen{false};

  // Queues a background task for this rep unless one is already queued.
  void Schedule(bool delayed);

  // What an iterator reads: the runs of a RunSet and, for the entries pushed
  // after it up to `heads`, a privately sorted tail (or none).
  struct View {
    std::shared_ptr<const RunSet> set;
    std::shared_ptr<const SortedRun> tail;
    WriteList::Heads heads{};
  };

  // A view of every entry pushed so far. Entries not yet in a run become a
  // new shared run if there are at least seal_threshold of them, else a
  // private sorted tail.
  View Snapshot();

  // Makes queued tasks harmless and waits for a running one to finish.
  void Close();

 private:
  void Background();
  // One step of background work; returns whether more is left for later.
  bool CutAndMerge(bool idle);

 public:
  std::vector<RunSlot> CollectTail(const RunSet& set, const WriteList::Heads& heads) const;

 private:

  // Set while a task is queued; cleared when it starts. acq_rel exchange so
  // exactly one requester queues a task.
  std::atomic<bool> scheduled_{false};
  // The RunSet version for which an iterator last asked for background work.
  std::atomic<uint64_t> nudged_version_{~uint64_t{0}};

  std::mutex task_mu_;
  std::condition_variable task_done_;
  bool closing_ = false;               // GUARDED_BY(task_mu_)
  bool running_ = false;               // GUARDED_BY(task_mu_)
  std::atomic<bool> stop_merging_{false};  // closing_, readable without the lock
  uint64_t last_seen_count_ = 0;       // background tasks only (they never overlap)
};

}  // namespace memrep::sorted_hash
