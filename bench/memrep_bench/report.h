// memrep_bench's output: medians over repetitions, the table on stdout with
// each rep's ratio to the baseline (skip_list when it ran), the JSON and CSV
// files with every run and the medians, and the --list_reps JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flags.h"
#include "memrep/status.h"
#include "reps.h"
#include "workloads.h"

namespace memrep::bench {

struct RunRecord {
  std::string workload;
  std::string rep;
  uint32_t repeat = 0;  // from 0
  Measurement m;
};

// The numbers of a run, by name, as the JSON and CSV files write them.
struct Metric {
  const char* name;
  double (*get)(const Measurement& m);
};
const std::vector<Metric>& Metrics();

struct Summary {
  std::string workload;
  std::string rep;
  uint32_t runs = 0;            // measured (not skipped) runs
  std::string note;             // the first run's note (why it was skipped, say)
  std::vector<double> medians;  // per Metrics(), the median over the measured runs
  double ratio = 0;             // median ops/s over the baseline's for this workload; 0 if none
  BenchFace face = BenchFace::kRep;  // what drove the rep, as its runs say

  double Get(const char* metric) const;
};

// RocksDB's default rep (skip_list) if it is among `reps`, else the first.
std::string BaselineRep(const std::vector<std::string>& reps);

// One Summary per (workload, rep), in the order of flags.benchmarks and flags.reps.
std::vector<Summary> Summarize(const std::vector<RunRecord>& runs, const Flags& flags);

// The configuration line and the table.
std::string FormatTable(const Flags& flags, const std::vector<Summary>& summaries);

Status WriteJson(const std::string& path, const Flags& flags, const std::vector<RunRecord>& runs,
                 const std::vector<Summary>& summaries);
Status WriteCsv(const std::string& path, const std::vector<RunRecord>& runs,
                const std::vector<Summary>& summaries);

// --list_reps: {"reps": [...]}, one object per rep, one line each, with its
// names, whether it is memrep's, and its traits.
std::string RepListJson(const std::vector<KnownRep>& reps);

// 1234567 -> "1.23M", 4321 -> "4.32K", 12.5 -> "12.5".
std::string FormatCount(double value);

}  // namespace memrep::bench
