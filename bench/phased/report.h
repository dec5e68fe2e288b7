// memrep_phased's output: each run's line, the medians' table, memrep.Auto's
// choices per phase, and the JSON document (--json).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "flags.h"
#include "phases.h"

namespace memrep::phased {

struct RunRecord {
  uint64_t round;
  size_t rep;
  RunFigures figures;
};

struct RepMedians {
  std::vector<double> seconds;      // Flags::phases's, in order
  std::vector<double> ops_per_s;    // likewise
  double reader_gets_per_s = NAN;   // the last phase with readers
  double reader_scans_per_s = NAN;  // likewise (serve)
  double total = 0;                 // the sum of the phases' medians
  double vs_best_fixed = NAN;
  double vs_skip_list = NAN;
};

// Each rep's medians over the rounds, with its total over the best fixed
// rep's and over skip_list's.
std::vector<RepMedians> Medians(const Flags& flags, const std::vector<RunRecord>& runs);

// The parameters, the phases and the load average at start.
void PrintHeader(const Flags& flags, const std::string& parent, const std::string& load_start);
// One run's line.
void PrintRun(const Flags& flags, const std::string& label, const RunFigures& figures);
// To stderr: the phases that saw fewer switches than --switches_per_phase.
void WarnFewSwitches(const Flags& flags, const std::string& label, const RunFigures& figures);
// The medians as a Markdown table.
void PrintTable(const Flags& flags, const std::vector<RepMedians>& medians);
// For every run of a memrep.Auto rep, the reps of its memtables in each phase.
void PrintAuto(const Flags& flags, const std::vector<RunRecord>& runs);
// The whole JSON document to `out`; false if it could not be written.
bool WriteJson(std::FILE* out, const Flags& flags, const std::vector<RunRecord>& runs,
               const std::vector<RepMedians>& medians, const std::string& load_start,
               const std::string& load_end);

}  // namespace memrep::phased
