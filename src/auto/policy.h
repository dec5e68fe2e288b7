// The policy of memrep.Auto: which candidate rep the next memtable gets,
// from the statistics of the last few memtables and what each rep was
// measured to cost. A pure function of its input, so tests drive it with
// made-up statistics and costs (tests/auto_test.cc, tests/auto_learning_test.cc).
//
// The model: every operation a memtable serves costs each rep some
// nanoseconds, and every write costs it some background CPU later (sorting,
// merging), weighed by how busy the cores are, and the reads of it once it
// is frozen (the flush's scan, reads of the immutable memtable). The
// statistics give how many of each operation a memtable served per write; a
// rep's estimated cost is
// the sum of those rates times its costs. A cost is the lineage's measured
// figure where its memtables measured one (auto/cost_book.h), else the
// prior's (the cost table, or the `prior` option), scaled to this machine by
// how the measured figures compare with the prior's. The cheapest candidate
// wins, but the settled rep is kept unless the winner is at least
// margin_percent cheaper (hysteresis). Threads that only read (readers
// beside a writer) are weighed apart: each busy thread counts as one, by how
// much the rep slows it, its time outside the memtable included (Choose
// says how). A candidate that no measurement covers for the current
// workload, and that the estimate puts within kTryRange of the best, is
// tried on a memtable now and then (at most explore_percent of the last
// kTrialWindow memtables).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "auto/cost_book.h"
#include "memrep/auto.h"

namespace memrep::auto_rep {

// A memtable's operations per write, from its statistics: those of the
// threads that write (their own reads included) in the first kTableOps
// slots, and those of the threads that only read in the reader slots.
std::array<double, kOps> RatesOf(const WorkloadStats& stats);
// What the writer threads (readers: the reader threads) of a memtable spent
// outside it, in ns per write of it: their spans less the time their
// sampled calls give to the rep (0 where nothing was timed).
double OutsidePerWrite(const WorkloadStats& stats, bool readers);
// Reader threads count in the choice once they read at least this often
// (gets and seeks per write).
inline constexpr double kMinReaderReads = 0.001;

// Trials: a candidate is tried when the estimate puts it within this factor
// of the best (the prior may be that far off on another machine), at most
// explore_percent of the last kTrialWindow memtables.
inline constexpr double kTryRange = 1.5;
inline constexpr uint32_t kTrialWindow = 16;
// An operation matters to a candidate's estimate (and must be measured for
// the candidate to count as covered) from this share of its cost.
inline constexpr double kSignificantShare = 0.1;
// The prior's scale to this machine stays within [1/kMaxScale, kMaxScale].
inline constexpr double kMaxScale = 5;

struct PolicyInput {
  // Canonical names, in the user's order; each one serves the comparator.
  std::vector<std::string> candidates;
  // The current rep (the newest memtable's); "" if there is none yet.
  std::string current;
  // The rep the lineage settled on: the newest choice that was not a trial
  // ("" : the current).
  std::string settled;
  // Statistics of the most recent memtables, newest first (may be empty).
  std::vector<WorkloadStats> history;
  std::string pin;    // a candidate, or ""
  std::string start;  // a candidate, or ""
  bool rotate = false;
  uint32_t margin_percent = 15;
  uint32_t background_weight_percent = 100;
  // Learning: whether measured figures count and trials are made.
  bool learn = true;
  const CostBook* book = nullptr;  // what was measured (nullptr: nothing)
  const Prior* prior = nullptr;    // nullptr: the built-in table
  uint32_t explore_percent = 20;
  uint32_t recent_trials = 0;  // trials among the last kTrialWindow memtables
};

struct PolicyChoice {
  size_t index = 0;  // into candidates
  bool trial = false;
  std::string reason;
};

// REQUIRES: !input.candidates.empty().
PolicyChoice Choose(const PolicyInput& input);

}  // namespace memrep::auto_rep
