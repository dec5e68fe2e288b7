// memrep_phased's command line, and the fixed shape of its workload: the
// constants every phase, the report and the header use.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace memrep::phased {

constexpr uint64_t kBatch = 1000;            // entries per WriteBatch in the bulk phase
constexpr uint64_t kRecent = 10000;          // Gets pick among this many last written keys
constexpr uint64_t kScanLength = 16;         // Next calls after each scan's Seek
constexpr uint64_t kWritesPerScan = 4;       // scanwrite: a scan after every 4th Put
constexpr uint64_t kReaders = 4;             // reader threads of the readers phase
constexpr uint64_t kReadsPerWrite = 2;       // the readers' Gets, all together, per write
constexpr uint64_t kEntryOverhead = 20;      // bytes a memtable adds to an entry, for sizing
constexpr uint64_t kMaxWriteBuffers = 4;     // max_write_buffer_number
constexpr uint64_t kBackgroundJobs = 2;      // max_background_jobs
constexpr uint64_t kPollEverySwitches = 32;  // Auto keeps its last 64 decisions

// The kinds of phase; a scenario runs some of them, in its order.
enum Phase { kBulk, kReadWrite, kScanWrite, kReadersPhase, kServe, kPhaseKinds };
constexpr const char* kPhaseNames[kPhaseKinds] = {"bulk", "readwrite", "scanwrite", "readers",
                                                  "serve"};
// What each kind does, as the header prints it.
constexpr const char* kPhaseWhat[kPhaseKinds] = {
    "WriteBatches", "Put + Get", "4 Puts + a scan, a new iterator per scan",
    "1 writer + 4 readers' Gets",
    "1 writer + 4 readers, each alternating a Get and a scan, a new iterator per scan"};
// Whether the phase has reader threads beside its writer.
constexpr bool HasReaders(Phase phase) { return phase == kReadersPhase || phase == kServe; }

// --scenario: main, the four phases the main job runs; loadserve, a bulk load
// and then reader threads' Gets and scans beside one writer.
std::vector<Phase> PhasesOf(const std::string& scenario);

struct Flags {
  std::vector<std::string> reps = {"skip_list",   "memrep.SortedHash", "memrep.Vector",
                                   "memrep.Trie", "memrep.Columnar",   "memrep.Auto"};
  uint64_t rounds = 3;
  uint64_t key_size = 16;
  uint64_t value_size = 100;
  uint64_t write_buffer_size = 16 << 20;
  uint64_t switches_per_phase = 20;
  uint64_t entries_per_phase = 0;  // 0: from --switches_per_phase
  uint64_t seed = 0;
  std::string scenario = "main";
  std::vector<Phase> phases;  // PhasesOf(scenario), set by ParseFlags
  std::string db;             // "": a fresh mkdtemp directory under /tmp
  std::string json;
};

extern const char* const kUsage;

// Entries written per phase: --entries_per_phase, or enough for
// --switches_per_phase memtable switches.
uint64_t EntriesPerPhase(const Flags& flags);

// Fills `flags` from argv. On a bad flag, returns false with `error` set
// ("" for --help).
bool ParseFlags(int argc, char** argv, Flags* flags, std::string* error);

// The numeric parameters, in the order they are printed and written.
std::vector<std::pair<const char*, uint64_t>> Parameters(const Flags& flags);

}  // namespace memrep::phased
