// The policy of memrep.Auto: which candidate rep the next memtable gets,
// from the statistics of the last few memtables. A pure function of its
// input, so tests drive it with made-up statistics (tests/auto_test.cc) and
// docs/auto.md prints its table.
//
// The model: every operation a memtable serves costs each rep a measured
// number of nanoseconds (RepCosts, from memrep_bench runs at a 16 MiB
// memtable, docs/auto.md), and every write costs it some background CPU
// later (sorting, merging), weighed by how busy the cores are. The
// statistics give how many of each operation a memtable served per write; a
// rep's estimated cost is the sum of those rates times its costs. The cheapest candidate wins, but
// the current rep is kept unless the winner is at least margin_percent cheaper (hysteresis).
// Threads that only read (readers beside a writer) are weighed apart: each
// busy thread counts as one, by how much the rep slows it (Choose says how).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "memrep/auto.h"

namespace memrep::auto_rep {

// The operations the cost model prices, per write.
enum Op : size_t {
  kInsert,            // a single-writer insert
  kConcurrentInsert,  // an insert among concurrent writers
  kBatchEntry,        // an entry of a batch (AddBatch)
  kGet,               // a point read
  kSeek,              // an iterator positioning call
  kStep,              // Next or Prev
  kBackground,        // background CPU per write (sorting, merging), scaled by
                      // background_weight_percent
  kOps
};

// One rep's measured costs, nanoseconds per operation.
struct RepCosts {
  std::string_view rep;  // canonical name
  std::array<double, kOps> ns;
};

// The table (docs/auto.md gives the runs it comes from). A rep not in it
// (one registered by an application) is priced as the sorted hash rep.
const std::vector<RepCosts>& CostTable();
const RepCosts& CostsOf(std::string_view rep);

// A memtable's operations per write, from its statistics: those of the
// threads that write (their own reads included), and those of the threads
// that only read.
std::array<double, kOps> RatesOf(const WorkloadStats& stats);
std::array<double, kOps> ReaderRatesOf(const WorkloadStats& stats);
// Reader threads count in the choice once they read at least this often
// (gets and seeks per write).
inline constexpr double kMinReaderReads = 0.001;

struct PolicyInput {
  // Canonical names, in the user's order; each one serves the comparator.
  std::vector<std::string> candidates;
  // The current rep (the newest memtable's); "" if there is none yet.
  std::string current;
  // Statistics of the most recent memtables, newest first (may be empty).
  std::vector<WorkloadStats> history;
  std::string pin;    // a candidate, or ""
  std::string start;  // a candidate, or ""
  bool rotate = false;
  uint32_t margin_percent = 15;
  uint32_t background_weight_percent = 100;
};

struct PolicyChoice {
  size_t index = 0;  // into candidates
  std::string reason;
};

// REQUIRES: !input.candidates.empty().
PolicyChoice Choose(const PolicyInput& input);

}  // namespace memrep::auto_rep
