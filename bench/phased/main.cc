// memrep_phased: one database through workload phases, per memtable rep.
//
// memrep.Auto picks the rep of each memtable from what the memtables before
// it were asked to do. This program gives it, and the fixed reps beside it,
// a workload that changes shape within one database, and shows
// how fast each rep runs each phase and which reps Auto chose when. Per rep
// and round it opens a database in a fresh directory and runs, in order:
//
//   bulk       WriteBatches of 1,000 random keys, one writer;
//   readwrite  one thread alternating a Put of a new key and a Get of one of
//              the last 10,000 keys written in the phase;
//   scanwrite  one thread: Puts of new keys, and after every 4th a range
//              scan (a new iterator for every scan: Seek to a random key,
//              16 Next);
//   readers    one writer of Puts and 4 reader threads Getting keys among
//              the last 10,000 the writer wrote, 2 Gets per write in all,
//              each side keeping pace with the other; the phase ends when
//              the writer and every reader are done.
//
// That is the main scenario (--scenario=main). --scenario=loadserve runs
// bulk, then
//
//   serve      as readers, but each reader alternates a Get and a scan:
//              reads and seeks beside one writer, where the rep bulk favours
//              (the vector's appends) is weakest.
//
// Every phase writes enough entries for --switches_per_phase memtable
// switches, counted by an EventListener and reported. Every Get must find
// its key with the value written, and every scan must come back in key order
// with the values written: the benchmark doubles as a check.
//
// Figures, per rep (bench/README.md, "The phased benchmark"): each phase's
// median seconds over --rounds and its ops/s, the total, the total over the
// best fixed rep's and over skip_list's; for each Auto rep, the reps its
// memtables used in each phase, run-length encoded, and after how many
// switches it settled.
//
// Exit status: 0 every check passed, 1 a check failed or RocksDB returned an
// error (the message says which rep, phase and key), 2 bad flags or a rep
// that cannot be created.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/program_util.h"
#include "flags.h"
#include "phases.h"
#include "report.h"
#include "reps.h"

namespace memrep::phased {
namespace {

using bench_program::LoadAverage;

int Main(int argc, char** argv) {
  Flags flags;
  std::string error;
  if (int rc = bench_program::FlagsExit(ParseFlags(argc, argv, &flags, &error), error,
                                        "memrep_phased", kUsage);
      rc >= 0) {
    return rc;
  }
  // Every rep is created, and the JSON file opened, before anything runs:
  // a bad name costs no time.
  if (!CheckReps(flags, &error)) {
    std::fprintf(stderr, "memrep_phased: %s\n", error.c_str());
    return 2;
  }
  std::FILE* json = nullptr;
  if (!flags.json.empty() && (json = std::fopen(flags.json.c_str(), "w")) == nullptr) {
    std::fprintf(stderr, "memrep_phased: --json: cannot write %s: %s\n", flags.json.c_str(),
                 std::strerror(errno));
    return 2;
  }
  ParentDir parent;
  if (!parent.Create(flags.db, &error)) {
    std::fprintf(stderr, "memrep_phased: %s\n", error.c_str());
    if (json != nullptr) std::fclose(json);
    return 2;
  }
  const std::string load_start = LoadAverage();
  PrintHeader(flags, parent.path(), load_start);

  // Reps alternate within each round, in --reps order.
  std::vector<RunRecord> runs;
  for (uint64_t round = 1; round <= flags.rounds; ++round) {
    for (size_t r = 0; r < flags.reps.size(); ++r) {
      const std::string label = "round " + std::to_string(round) + " " + flags.reps[r];
      RunFigures figures;
      if (!RunInFreshDir(flags, flags.reps[r], parent.path(), &figures, &error)) {
        std::fprintf(stderr, "memrep_phased: %s: %s\n", label.c_str(), error.c_str());
        if (json != nullptr) std::fclose(json);
        return 1;
      }
      PrintRun(flags, label, figures);
      WarnFewSwitches(flags, label, figures);
      runs.push_back({round, r, std::move(figures)});
    }
  }

  const std::vector<RepMedians> medians = Medians(flags, runs);
  PrintTable(flags, medians);
  const std::string load_end = LoadAverage();
  std::printf(
      "\nMedians over %llu round(s). s: the phase's wall time (keys drawn beforehand); ops/s: "
      "its Puts, Gets and scans (each one op) per second; readers: the writer's Puts per second "
      "and the %llu readers' Gets per second, both over the phase's time (the phase ends when "
      "the writes and the readers' Gets, 2 per write, are done); total s: the sum of the "
      "phases' medians; ÷ best fixed: total over the fastest total among the reps that choose no "
      "other rep (all but memrep.Auto); "
      "÷ skip_list: total over skip_list's (lower is faster).\n",
      static_cast<unsigned long long>(flags.rounds), static_cast<unsigned long long>(kReaders));
  PrintAuto(flags, runs);
  std::printf("load average at end: %s\n", load_end.c_str());

  if (json != nullptr) {
    const bool written = WriteJson(json, flags, runs, medians, load_start, load_end);
    if (std::fclose(json) != 0 || !written) {
      std::fprintf(stderr, "memrep_phased: --json: writing %s failed\n", flags.json.c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace memrep::phased

int main(int argc, char** argv) { return memrep::phased::Main(argc, argv); }
