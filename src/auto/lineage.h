// What memrep.Auto keeps in a RepLineage: the newest memtable's recorder,
// the statistics of the ones before it, what its memtables measured, and
// the decisions so far.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "auto/cost_book.h"
#include "auto/workload_recorder.h"
#include "concurrency/mutex.h"
#include "memrep/auto.h"

namespace memrep {

struct RepLineage::State {
  explicit State(uint32_t lineage_id) : id(lineage_id) {}
  // Saves what was learned to the learned_file, if there is one.
  ~State();

  const uint32_t id;  // RepLineage::id()
  // Held while a memtable's rep is chosen and recorded (once per memtable;
  // the learned_file is read and written under it), and by readers of the
  // counters; never on a data path.
  mutable concurrency::Mutex mu;
  // The newest memtable's statistics, still being counted; nullptr before
  // the first memtable.
  std::shared_ptr<auto_rep::WorkloadRecorder> newest GUARDED_BY(mu);
  std::string newest_rep GUARDED_BY(mu);
  // The rep of the newest choice that was not a trial.
  std::string settled GUARDED_BY(mu);
  // Statistics of the memtables before the newest, newest first, as they
  // were when each was replaced.
  std::deque<WorkloadStats> history GUARDED_BY(mu);
  // What the memtables measured of their reps.
  auto_rep::CostBook book GUARDED_BY(mu);
  // Memtables replaced but not yet destroyed, whose background and frozen
  // figures are still to come (oldest first, at most kPendingBackground),
  // with their statistics when they were replaced.
  struct Pending {
    std::shared_ptr<auto_rep::WorkloadRecorder> recorder;
    std::string rep;
    WorkloadStats replaced;
  };
  std::deque<Pending> pending GUARDED_BY(mu);
  // Whether each of the last kTrialWindow decisions was a trial.
  std::deque<bool> trials GUARDED_BY(mu);
  AutoCounters counters GUARDED_BY(mu);
  // The learned_file: its path ("" : none), whether it was read, and the
  // memtable count at the last save.
  std::string learned_file GUARDED_BY(mu);
  bool learned_read GUARDED_BY(mu) = false;
  uint64_t saved_at GUARDED_BY(mu) = 0;

  static constexpr size_t kRecentDecisions = 64;
  static constexpr size_t kPendingBackground = 16;
  // The learned_file is rewritten every this many memtables (and when the
  // lineage is destroyed).
  static constexpr uint64_t kSaveEvery = 8;

  // Counts the decision for a new memtable and keeps it among the recent.
  void Record(AutoDecision decision) REQUIRES(mu);
  // Learns the background and frozen figures of the pending memtables
  // destroyed since.
  void Harvest() REQUIRES(mu);
  // Writes the learned_file; "" or why it failed.
  std::string Save() REQUIRES(mu);
};

namespace auto_rep {

// The newest decision recorded in `lineage`, as one line for a log
// ("memrep.Auto: memtable N uses <rep> (...): <reason>"); "" if none.
std::string DescribeNewestDecision(const RepLineage& lineage);

// What `lineage`'s memtables measured so far (tests, calibration).
CostBook CostBookOf(const RepLineage& lineage);

}  // namespace auto_rep

}  // namespace memrep
