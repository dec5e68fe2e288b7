#include "calibrate.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "auto/cost_book.h"
#include "entry_codec.h"
#include "progress.h"
#include "reps.h"
#include "workloads.h"

namespace memrep::bench {

const std::vector<CalibrationColumn>& CalibrationColumns() {
  // The order of the prior's figures: insert/concurrent_insert/batch_entry/
  // get/seek/step/background. Gets are timed on the mutable rep (what a
  // memtable serves while it is written); background comes from the fill.
  static const std::vector<CalibrationColumn> columns = {
      {"insert", "fillrandom", 0},     {"concurrent_insert", "concurrentfill", 0},
      {"batch_entry", "fillbatch", 0}, {"get", "readrandom", 0},
      {"seek", "seekrandom", 0},       {"step", "readseq", 1},
      {"background", "fillrandom", 0},
  };
  return columns;
}

std::vector<std::string> CalibrationReps() {
  std::vector<std::string> out;
  for (const KnownRep& rep : KnownReps()) {
    if (!rep.memrep || rep.standalone_peer) continue;
    if (rep.canonical_name.rfind("memrep.", 0) != 0 || rep.canonical_name == "memrep.Auto") {
      continue;
    }
    out.push_back(rep.name);
  }
  return out;
}

std::string FormatCalibration(const std::vector<CalibratedRep>& reps) {
  const std::vector<CalibrationColumn>& columns = CalibrationColumns();
  std::string out = "ns per operation, at the rep level (docs/auto.md, \"Learning\"):\n";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%-18s", "rep");
  out += buf;
  for (const CalibrationColumn& c : columns) {
    std::snprintf(buf, sizeof buf, " %12s", c.column);
    out += buf;
  }
  out += "\n";
  std::vector<auto_rep::RepCosts> costs;
  for (const CalibratedRep& rep : reps) {
    auto_rep::RepCosts c;
    c.rep = rep.canonical_name;
    const auto_rep::Prior builtin("");
    const auto& fallback = builtin.Of(rep.canonical_name);
    std::snprintf(buf, sizeof buf, "%-18s", rep.canonical_name.c_str());
    out += buf;
    for (size_t i = 0; i < columns.size() && i < c.ns.size(); ++i) {
      const bool measured = i < rep.ns.size() && rep.ns[i] >= 0;
      c.ns[i] = measured ? rep.ns[i] : fallback[i];
      std::snprintf(buf, sizeof buf, " %11.0f%s", c.ns[i], measured ? " " : "*");
      out += buf;
    }
    out += "\n";
    costs.push_back(c);
  }
  out += "(* not measured: the rep skips that workload; the built-in table's figure)\n";
  out += "prior=" + auto_rep::FormatPrior(costs) + "\n";
  return out;
}

namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int Calibrate(const Flags& base) {
  const std::vector<std::string> reps = CalibrationReps();
  const std::vector<CalibrationColumn>& columns = CalibrationColumns();
  // figures[rep][column]: one per repeat.
  std::vector<std::vector<std::vector<double>>> figures(
      reps.size(), std::vector<std::vector<double>>(columns.size()));
  const KeyCodec keys(base.key_size, base.shared_prefix);
  const ValuePool values(base.item_size, base.seed);
  Progress progress(base.progress);
  for (size_t col = 0; col < columns.size(); ++col) {
    const CalibrationColumn& column = columns[col];
    if (std::string(column.column) == "background") continue;  // measured with the fill
    Flags flags = base;
    flags.num_scans = column.num_scans;
    flags.freeze_before_reads = false;
    flags.num_threads = 1;
    const WorkloadInfo& workload = *FindWorkload(column.workload);
    const KeyPlan plan = MakeKeyPlan(workload, flags);
    WorkloadInput input = WorkloadInput::Of(flags, keys, values, plan, &progress);
    const RepConfig config = RepConfigOf(flags);
    for (uint32_t repeat = 0; repeat < flags.repeats; ++repeat) {
      for (size_t k = 0; k < reps.size(); ++k) {
        const size_t r = (k + repeat) % reps.size();
        std::unique_ptr<RepFactory> factory;
        const Status s =
            RepFactory::Make(reps[r], config, ExpectedArenaBytes(workload, flags), &factory);
        if (!s.ok()) {
          std::fprintf(stderr, "memrep_bench: %s\n", s.message().c_str());
          return 2;
        }
        input.label = std::string(column.workload) + " " + reps[r];
        const Measurement m = RunWorkload(workload, *factory, input);
        if (!m.ok) {
          std::fprintf(stderr, "memrep_bench: CHECK FAILED: %s on %s: %s\n", column.workload,
                       reps[r].c_str(), m.error.c_str());
          return 1;
        }
        if (m.skipped) continue;
        figures[r][col].push_back(m.micros_per_op * 1000);
        if (std::string(column.workload) == "fillrandom") {
          for (size_t b = 0; b < columns.size(); ++b) {
            if (std::string(columns[b].column) == "background" &&
                m.background_cpu_per_million() >= 0) {
              // CPU seconds per million entries = ns per entry / 1000.
              figures[r][b].push_back(m.background_cpu_per_million() * 1000);
            }
          }
        }
      }
    }
  }
  std::vector<CalibratedRep> out;
  for (size_t r = 0; r < reps.size(); ++r) {
    CalibratedRep rep;
    for (const KnownRep& known : KnownReps()) {
      if (known.name == reps[r]) rep.canonical_name = known.canonical_name;
    }
    for (size_t col = 0; col < columns.size(); ++col) rep.ns.push_back(Median(figures[r][col]));
    out.push_back(rep);
  }
  std::fputs(FormatCalibration(out).c_str(), stdout);
  return 0;
}

}  // namespace memrep::bench
