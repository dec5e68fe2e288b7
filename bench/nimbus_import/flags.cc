#include "flags.h"

#include <string_view>

#include "common/program_util.h"

namespace memrep::nimbus_import {

const char* const kUsage =
    "usage: memrep_nimbus_import [--name=value ...]\n"
    "  --records=N            records imported per run (5000000)\n"
    "  --batch=N              records per WriteBatch, one db->Write each (5000)\n"
    "  --reps=LIST            comma list of memtable factory strings\n"
    "                         (skip_list,vector,memrep.Vector,memrep.SortedHash)\n"
    "  --db=DIR               parent of the per-run database directories (/tmp/memrep_nimbus)\n"
    "  --runs=N               runs; each runs every rep, the order rotating (3)\n"
    "  --read_every=N         persists between two read phases (10)\n"
    "  --reads=N              Gets of recent keys per read phase; 0: none (1000)\n"
    "  --write_buffer_size=N  memtable bytes (67108864)\n"
    "  --seed=N               seed of the keys and of the reads' picks (0)\n"
    "  --json=FILE            write every run's figures and the medians\n";

bool ParseFlags(int argc, char** argv, Flags* flags, std::string* error) {
  auto count_of = [flags](std::string_view name) -> uint64_t* {
    return name == "records"             ? &flags->records
           : name == "batch"             ? &flags->batch
           : name == "runs"              ? &flags->runs
           : name == "read_every"        ? &flags->read_every
           : name == "reads"             ? &flags->reads
           : name == "write_buffer_size" ? &flags->write_buffer_size
           : name == "seed"              ? &flags->seed
                                         : nullptr;
  };
  if (!bench_program::ParseFlags(argc, argv, count_of, {&flags->reps, &flags->db, &flags->json},
                                 error)) {
    return false;
  }
  if (flags->records == 0 || flags->batch == 0 || flags->runs == 0 || flags->read_every == 0) {
    *error = "--records, --batch, --runs and --read_every must be at least 1";
    return false;
  }
  if (flags->reps.empty() || flags->db.empty()) {
    *error = "--reps and --db must not be empty";
    return false;
  }
  return true;
}

std::vector<std::pair<const char*, uint64_t>> Parameters(const Flags& flags) {
  return {{"records", flags.records},
          {"batch", flags.batch},
          {"key_size", kKeySize},
          {"value_size", kValueSize},
          {"write_buffer_size", flags.write_buffer_size},
          {"max_write_buffer_number", 2},
          {"read_every", flags.read_every},
          {"reads", flags.reads},
          {"recent_batches", kRecentBatches},
          {"runs", flags.runs},
          {"seed", flags.seed}};
}

}  // namespace memrep::nimbus_import
