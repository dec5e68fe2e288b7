#include "flags.h"

#include <cmath>
#include <string_view>

#include "common/program_util.h"

namespace memrep::phased {

const char* const kUsage =
    "usage: memrep_phased [--name=value ...]\n"
    "  --reps=LIST              comma list: skip_list, or memrep factory strings\n"
    "                           (skip_list,memrep.SortedHash,memrep.Vector,memrep.Trie,\n"
    "                           memrep.Columnar,memrep.Auto)\n"
    "  --rounds=N               rounds; each runs every rep once, in --reps order (3)\n"
    "  --key_size=N             bytes of every key, random (16)\n"
    "  --value_size=N           bytes of every value (100)\n"
    "  --write_buffer_size=N    memtable bytes (16777216)\n"
    "  --switches_per_phase=N   memtable switches each phase is sized for (20)\n"
    "  --entries_per_phase=N    entries written per phase; 0: from --switches_per_phase (0)\n"
    "  --scenario=NAME          main: bulk, readwrite, scanwrite, readers; loadserve: bulk,\n"
    "                           then serve (1 writer + 4 readers, Gets and scans) (main)\n"
    "  --seed=N                 seed of the keys, the Gets' picks and the Seeks' targets (0)\n"
    "  --db=DIR                 parent of the per-run database directories\n"
    "                           (a fresh /tmp/memrep_phased-XXXXXX)\n"
    "  --json=FILE              write every run's figures, the medians and Auto's choices\n";

namespace {

uint64_t* CountFlag(std::string_view name, Flags* flags) {
  return name == "rounds"               ? &flags->rounds
         : name == "key_size"           ? &flags->key_size
         : name == "value_size"         ? &flags->value_size
         : name == "write_buffer_size"  ? &flags->write_buffer_size
         : name == "switches_per_phase" ? &flags->switches_per_phase
         : name == "entries_per_phase"  ? &flags->entries_per_phase
         : name == "seed"               ? &flags->seed
                                        : nullptr;
}

bool CheckFlags(const Flags& flags, std::string* error) {
  if (flags.rounds == 0 || flags.key_size == 0 || flags.write_buffer_size == 0) {
    *error = "--rounds, --key_size and --write_buffer_size must be at least 1";
    return false;
  }
  if (flags.key_size > (1 << 20) || flags.value_size > (1 << 26)) {
    *error = "--key_size must be at most 1048576 and --value_size at most 67108864";
    return false;
  }
  if (flags.switches_per_phase == 0 && flags.entries_per_phase == 0) {
    *error = "--switches_per_phase must be at least 1 (or give --entries_per_phase)";
    return false;
  }
  // The keys of one phase are held in memory.
  const double key_bytes =
      static_cast<double>(EntriesPerPhase(flags)) * static_cast<double>(flags.key_size);
  if (key_bytes > static_cast<double>(uint64_t{1} << 36)) {
    *error =
        "a phase's keys would take more than 64 GiB; lower --switches_per_phase, "
        "--write_buffer_size or --entries_per_phase";
    return false;
  }
  if (flags.phases.empty()) {
    *error = "--scenario must be main or loadserve, not '" + flags.scenario + "'";
    return false;
  }
  if (flags.reps.empty()) {
    *error = "--reps must not be empty";
    return false;
  }
  return true;
}

}  // namespace

// ceil(switches × write buffer / entry bytes), plus 10%: an entry costs the
// memtable a little more or less than the estimate, depending on the rep.
uint64_t EntriesPerPhase(const Flags& flags) {
  if (flags.entries_per_phase != 0) return flags.entries_per_phase;
  const double entry = static_cast<double>(flags.key_size + flags.value_size + kEntryOverhead);
  const double fill = std::ceil(static_cast<double>(flags.switches_per_phase) *
                                static_cast<double>(flags.write_buffer_size) / entry);
  return static_cast<uint64_t>(std::ceil(fill * 1.1));
}

std::vector<Phase> PhasesOf(const std::string& scenario) {
  if (scenario == "main") return {kBulk, kReadWrite, kScanWrite, kReadersPhase};
  if (scenario == "loadserve") return {kBulk, kServe};
  return {};
}

bool ParseFlags(int argc, char** argv, Flags* flags, std::string* error) {
  auto count_of = [flags](std::string_view name) { return CountFlag(name, flags); };
  if (!bench_program::ParseFlags(
          argc, argv, count_of,
          {&flags->reps, &flags->db, &flags->json, {{"scenario", &flags->scenario}}}, error)) {
    return false;
  }
  flags->phases = PhasesOf(flags->scenario);
  return CheckFlags(*flags, error);
}

// The numeric parameters, in the order they are printed and written.
std::vector<std::pair<const char*, uint64_t>> Parameters(const Flags& flags) {
  return {{"rounds", flags.rounds},
          {"entries_per_phase", EntriesPerPhase(flags)},
          {"switches_per_phase", flags.switches_per_phase},
          {"key_size", flags.key_size},
          {"value_size", flags.value_size},
          {"write_buffer_size", flags.write_buffer_size},
          {"max_write_buffer_number", kMaxWriteBuffers},
          {"max_background_jobs", kBackgroundJobs},
          {"batch", kBatch},
          {"recent", kRecent},
          {"scan_length", kScanLength},
          {"writes_per_scan", kWritesPerScan},
          {"readers", kReaders},
          {"seed", flags.seed}};
}

}  // namespace memrep::phased
