// memrep_bench --calibrate_auto: measures memrep.Auto's cost table on this
// machine, at the rep level, and prints it as Auto's `prior` option takes it
// (docs/auto.md, "Learning"), so that a user can pin what Auto assumes
// before its memtables have measured anything.
#pragma once

#include <string>
#include <vector>

#include "flags.h"

namespace memrep::bench {

// One column of the cost table: the workload whose time per operation
// prices it (background: CPU of the background pool per entry of the fill).
struct CalibrationColumn {
  const char* column;    // the prior's name for it: "insert", ...
  const char* workload;  // memrep_bench's workload
  uint32_t num_scans;    // --num_scans for the run (seekrandom: 0, a seek alone)
};
const std::vector<CalibrationColumn>& CalibrationColumns();

// One rep's figures, ns per operation, in CalibrationColumns() order; a
// figure < 0 was not measured (the rep skipped the workload).
struct CalibratedRep {
  std::string canonical_name;  // memrep.SortedHash, ...
  std::vector<double> ns;
};

// The bench names of the reps a calibration measures: memrep's own reps
// (not Auto, not the tests' or peers' reps).
std::vector<std::string> CalibrationReps();

// A table of the figures, then the line `prior=...` that Auto's options
// take. A figure that was not measured is written as the built-in table's.
std::string FormatCalibration(const std::vector<CalibratedRep>& reps);

// Runs every column's workload on every calibration rep, flags.repeats
// times, reps alternating, and prints FormatCalibration of the medians.
// Returns the exit status (0, 1 a check failed, 2 a rep could not be made).
int Calibrate(const Flags& flags);

}  // namespace memrep::bench
