// memrep_nimbus_import: the "Nimbus scenario" inside a real RocksDB database.
//
// An Ethereum client such as Nimbus imports the chain by persisting big
// WriteBatches of random 32-byte keys (hashes) from one writer thread, and
// reads recent data while it does. This program replays that shape once per
// memtable rep and run: --records records in WriteBatches of --batch records,
// each batch one db->Write (a "persist"), and after every --read_every
// persists, --reads point Gets of keys from the last 10 batches (keys that
// were just written, so mostly still in the memtables). Every Get must find
// its key with the value written: the benchmark doubles as a check.
//
// Figures, per rep, the median over --runs runs (bench/README.md, "The Nimbus
// scenario"): import time, import + final flush time, the p50 / p99 / max
// time of one persist (how long the writer is blocked per persist, memtable
// switches and write stalls included), the number of flushes and their summed
// duration, and the rate of the recent-data reads.
//
// Exit status: 0 every check passed, 1 a check failed or RocksDB returned an
// error (the message says which), 2 bad flags or a rep that cannot be created.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "common/program_util.h"
#include "flags.h"
#include "import.h"
#include "report.h"

namespace memrep::nimbus_import {
namespace {

using bench_program::LoadAverage;

int Main(int argc, char** argv) {
  Flags flags;
  std::string error;
  if (int rc = bench_program::FlagsExit(ParseFlags(argc, argv, &flags, &error), error,
                                        "memrep_nimbus_import", kUsage);
      rc >= 0) {
    return rc;
  }
  // Every rep is created, and the JSON file opened, before anything runs:
  // a bad name costs no time.
  std::vector<Rep> reps;
  if (!CreateReps(flags, &reps, &error)) {
    std::fprintf(stderr, "memrep_nimbus_import: %s\n", error.c_str());
    return 2;
  }
  std::FILE* json = nullptr;
  if (!flags.json.empty() && (json = std::fopen(flags.json.c_str(), "w")) == nullptr) {
    std::fprintf(stderr, "memrep_nimbus_import: --json: cannot write %s: %s\n", flags.json.c_str(),
                 std::strerror(errno));
    return 2;
  }

  const std::string load_start = LoadAverage();
  std::printf("memrep_nimbus_import:");
  for (const auto& [name, value] : Parameters(flags)) {
    std::printf(" %s=%s", name, std::to_string(value).c_str());
  }
  std::printf(
      " db=%s\n  one writer; WAL on (sync off); allow_concurrent_memtable_write=false; "
      "RocksDB's default compaction\n",
      flags.db.c_str());
  for (const Rep& rep : reps) {
    std::printf("rep %-20s factory %s\n", rep.spec.c_str(), rep.factory->Name());
  }
  std::printf("load average at start: %s\n", load_start.c_str());
  std::fflush(stdout);

  // Reps alternate within each run; the first rep rotates from run to run.
  std::vector<RunRecord> runs;
  for (uint64_t run = 1; run <= flags.runs; ++run) {
    for (size_t k = 0; k < reps.size(); ++k) {
      const size_t r = (run - 1 + k) % reps.size();
      const std::string label = "run " + std::to_string(run) + " " + reps[r].spec;
      Figures figures;
      if (!RunInFreshDir(flags, reps[r], &figures, &error)) {
        std::fprintf(stderr, "memrep_nimbus_import: %s: %s\n", label.c_str(), error.c_str());
        if (json != nullptr) std::fclose(json);
        return 1;
      }
      std::printf(
          "%-26s import %.2f s, +flush %.2f s, persist p50 %.2f p99 %.2f max %.2f ms, "
          "%.0f flushes (%.2f s), recent reads/s %s, all found\n",
          label.c_str(), figures.import_s, figures.import_flush_s, figures.persist_p50_ms,
          figures.persist_p99_ms, figures.persist_max_ms, figures.flushes, figures.flush_s,
          Format(figures.recent_reads_per_s, 0, "-").c_str());
      std::fflush(stdout);
      runs.push_back({run, r, figures});
    }
  }
  std::error_code ec;
  std::filesystem::remove(flags.db, ec);  // only when empty: --db may hold other things

  const std::vector<Figures> medians = Medians(reps.size(), runs);
  PrintTable(reps, medians);
  const std::string load_end = LoadAverage();
  std::printf(
      "\nMedians over %s run(s). import s: the writer's loop (batches built and persisted), "
      "read phases excluded; import+flush s: with the final Flush(wait=true); persist: one "
      "db->Write of a batch, as the writer sees it (memtable switches and stalls included); "
      "flushes: completed, the final one included; flush s: their summed duration; recent "
      "reads/s: Gets of keys from the last %s batches.\nload average at end: %s\n",
      std::to_string(flags.runs).c_str(), std::to_string(kRecentBatches).c_str(), load_end.c_str());

  if (json != nullptr) {
    const bool written = WriteJson(json, flags, reps, runs, medians, load_start, load_end);
    if (std::fclose(json) != 0 || !written) {
      std::fprintf(stderr, "memrep_nimbus_import: --json: writing %s failed\n", flags.json.c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace memrep::nimbus_import

int main(int argc, char** argv) { return memrep::nimbus_import::Main(argc, argv); }
