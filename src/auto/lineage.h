// What memrep.Auto keeps in a RepLineage: the newest memtable's recorder,
// the statistics of the ones before it, and the decisions so far.
#pragma once

#include <deque>
#include <memory>
#include <string>

#include "auto/workload_recorder.h"
#include "concurrency/mutex.h"
#include "memrep/auto.h"

namespace memrep {

struct RepLineage::State {
  // Held while a memtable's rep is chosen and recorded (once per memtable),
  // and by readers of the counters; never on a data path.
  mutable concurrency::Mutex mu;
  // The newest memtable's statistics, still being counted; nullptr before
  // the first memtable.
  std::shared_ptr<auto_rep::WorkloadRecorder> newest GUARDED_BY(mu);
  std::string newest_rep GUARDED_BY(mu);
  // Statistics of the memtables before the newest, newest first, as they
  // were when each was replaced.
  std::deque<WorkloadStats> history GUARDED_BY(mu);
  AutoCounters counters GUARDED_BY(mu);

  static constexpr size_t kRecentDecisions = 64;

  // Counts the decision for a new memtable and keeps it among the recent.
  void Record(AutoDecision decision) REQUIRES(mu);
};

namespace auto_rep {

// The newest decision recorded in `lineage`, as one line for a log
// ("memrep.Auto: memtable N uses <rep> (...): <reason>"); "" if none.
std::string DescribeNewestDecision(const RepLineage& lineage);

}  // namespace auto_rep

}  // namespace memrep
