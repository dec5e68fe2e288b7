// Core: the part of a sorted hash rep that background tasks share: the write
// list, the run sets and the task bookkeeping. It is reference counted so a
// task queued on the shared worker can outlive the rep safely (it then sees
// `closing` and returns without touching any entry).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "format/key_order.h"
#include "memrep/sorted_hash.h"
#include "sorted_hash/run_set.h"
#include "sorted_hash/write_list.h"
#include "util/quiet_detector.h"

namespace memrep::sorted_hash {

class Core : public std::enable_shared_from_this<Core> {
 public:
  Core(const SortedHashOptions& options, const UserKeyComparator* comparator,
       Allocator* allocator)
      : options(options),
        order(comparator),
        region(allocator, NodeRegion::ChunkBytesFor(options.EffectiveWriteBufferSize())) {}

  const SortedHashOptions options;
  const format::KeyOrder order;
  // Where every node is: chunks of the rep's Allocator, by reference.
  NodeRegion region;
  WriteList write_list;
  RunSetHolder runs;
  const MemoryCounter run_memory = std::make_shared<std::atomic<int64_t>>(0);
  std::atomic<bool> frozen{false};

  // Queues a background task for this rep unless one is already queued.
  void Schedule(bool delayed);

  // The entries pushed after a run set's `covered` heads up to `heads`,
  // sorted into a few runs that keep every prefix (`levels`, biggest first,
  // each more than kTailRatio times the next). A snapshot sorts only what was
  // pushed since the last one into a new smallest level, then merges the two
  // smallest while that ratio is broken. So an entry is copied about
  // kTailRatio times per level, log_kTailRatio(tail size) levels in all,
  // however often snapshots come, and a reader searches a handful of levels.
  struct Tail {
    static constexpr size_t kTailRatio = 8;
    WriteList::Heads covered{};
    uint64_t covered_entries = 0;  // orders the tails of different cuts
    WriteList::Heads heads{};
    std::vector<std::shared_ptr<const SortedRun>> levels;
    size_t size() const {
      size_t n = 0;
      for (const auto& level : levels) n += level->size();
      return n;
    }
  };

  // What an iterator reads: the runs of a RunSet and the tail after it.
  struct View {
    std::shared_ptr<const RunSet> set;
    Tail tail;
    const WriteList::Heads& heads() const { return tail.heads; }
  };

  // A view of every entry pushed so far. The tail is built from the last
  // snapshot's (kept in the core), sorting only the entries pushed since.
  // A tail of at least seal_threshold entries is published as a new run.
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
  // The tail of `set`, built from the cached one when it starts where `set`
  // ends; loads the write list's heads.
  Tail BuildTail(const RunSet& set);
  // The tail, and `more` entries pushed after it, as one run (default layout).
  std::shared_ptr<const SortedRun> Seal(const Tail& tail, const SortedRun* more = nullptr) const;

  std::mutex tail_mu_;
  Tail tail_cache_;  // GUARDED_BY(tail_mu_)

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
  // How often the worker looks again while a rep has unsorted entries or
  // several runs: once nothing arrives for a period, the rep is made one run.
  static constexpr std::chrono::milliseconds kRecheckPeriod{10};
  // Whether inserts have paused; background tasks only (they never overlap).
  util::QuietDetector quiet_{kRecheckPeriod};
};

}  // namespace memrep::sorted_hash
