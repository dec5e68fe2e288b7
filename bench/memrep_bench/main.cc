// memrep_bench: every memtable rep, memrep's and RocksDB's own, through one
// interface (rocksdb::MemTableRep) on the same keys; with --face=standalone,
// memrep's reps through memrep::MemTable instead. See bench/README.md.
//
// Exit status: 0 every check passed (or --help, --list_reps); 1 a workload's
// check failed (or an output file could not be written); 2 bad flags.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "calibrate.h"
#include "entry_codec.h"
#include "flags.h"
#include "progress.h"
#include "report.h"
#include "reps.h"
#include "workloads.h"

namespace memrep::bench {
namespace {

int BadFlags(const std::string& message) {
  std::fprintf(stderr, "memrep_bench: %s\nRun memrep_bench --help for the flags.\n",
               message.c_str());
  return 2;
}

// Whether `path` can be written, checked before hours of benchmarking.
bool Writable(const std::string& path) {
  return path.empty() || static_cast<bool>(std::ofstream(path, std::ios::app));
}

int Main(int argc, char** argv) {
  Flags flags;
  bool help = false;
  Status s = ParseFlags(argc, argv, &flags, &help);
  if (!s.ok()) return BadFlags(s.message());
  if (help) {
    std::fputs(Usage().c_str(), stdout);
    return 0;
  }
  if (flags.list_reps) {
    std::fputs(RepListJson(KnownReps()).c_str(), stdout);
    return 0;
  }
  if (flags.calibrate_auto) return Calibrate(flags);
  if (!Writable(flags.json_path)) return BadFlags("cannot write --json=" + flags.json_path);
  if (!Writable(flags.csv_path)) return BadFlags("cannot write --csv=" + flags.csv_path);

  // Every rep's factory once, to refuse bad rep options before any run.
  const RepConfig config = RepConfigOf(flags);
  for (const std::string& rep : flags.reps) {
    std::unique_ptr<RepFactory> factory;
    const WorkloadInfo& first = *FindWorkload(flags.benchmarks.front());
    s = RepFactory::Make(rep, config, ExpectedArenaBytes(first, flags), &factory);
    if (!s.ok()) return BadFlags(s.message());
    std::printf("rep %-15s %s\n", rep.c_str(), factory->description().c_str());
  }
  std::fflush(stdout);

  const KeyCodec keys(flags.key_size, flags.shared_prefix);
  const ValuePool values(flags.item_size, flags.seed);
  Progress progress(flags.progress);
  std::vector<RunRecord> runs;
  for (const std::string& name : flags.benchmarks) {
    const WorkloadInfo& workload = *FindWorkload(name);
    const KeyPlan plan = MakeKeyPlan(workload, flags);
    WorkloadInput input = WorkloadInput::Of(flags, keys, values, plan, &progress);
    for (uint32_t repeat = 0; repeat < flags.repeats; ++repeat) {
      // Alternate the reps, and rotate who goes first, so that they share
      // the machine's noise.
      for (size_t i = 0; i < flags.reps.size(); ++i) {
        const std::string& rep = flags.reps[(i + repeat) % flags.reps.size()];
        std::unique_ptr<RepFactory> factory;
        s = RepFactory::Make(rep, config, ExpectedArenaBytes(workload, flags), &factory);
        if (!s.ok()) return BadFlags(s.message());
        input.label = name + " " + rep + " (repeat " + std::to_string(repeat + 1) + "/" +
                      std::to_string(flags.repeats) + ")";
        RunRecord record{name, rep, repeat, RunWorkload(workload, *factory, input)};
        if (!record.m.ok) {
          std::fprintf(stderr, "memrep_bench: CHECK FAILED: %s on %s (repeat %u): %s\n",
                       name.c_str(), rep.c_str(), repeat + 1, record.m.error.c_str());
          return 1;
        }
        runs.push_back(std::move(record));
      }
    }
  }

  const std::vector<Summary> summaries = Summarize(runs, flags);
  std::fputs(FormatTable(flags, summaries).c_str(), stdout);
  std::fflush(stdout);
  s = Status::OK();
  if (!flags.json_path.empty()) s = WriteJson(flags.json_path, flags, runs, summaries);
  if (s.ok() && !flags.csv_path.empty()) s = WriteCsv(flags.csv_path, runs, summaries);
  if (!s.ok()) {
    std::fprintf(stderr, "memrep_bench: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace memrep::bench

int main(int argc, char** argv) { return memrep::bench::Main(argc, argv); }
