// memrep_bench's workloads. Each one is timed, then checks what it read and
// wrote; a wrong answer fails the run (and the bench exits 1) instead of
// producing a fast number.
//
// The data set: key index j in [0, n) (n = --num_operations) is the key
// number 2j, written with sequence j+1. Odd key numbers are never written, so
// a read of one is a miss that lands *between* present keys. Read workloads
// fill the rep with the data set first, untimed, in a random order.
//
// The workloads run through a face (faces.h): the rep level
// (rocksdb::MemTableRep) for every rep, or memrep::MemTable for memrep's reps
// under --face=standalone (standalone_face.h).
//
//   fillseq           1 writer, key indexes 0..n-1 in order
//   fillrandom        1 writer, the same keys in a random order
//   fillbatch         1 writer, fillrandom's order in batches of batch_size (one
//                     MemTable::Write each; row by row at the rep level, as RocksDB does)
//   overwrite         1 writer, n Puts of n / versions_per_key keys (uniform or zipfian):
//                     many versions per key
//   concurrentfill    N writers (at least 2), InsertKeyConcurrently (MemTable::Put from
//                     each), disjoint shares of fillrandom's keys
//   readrandom        N readers, n Gets of keys from the distribution, read_miss_ratio of
//                     them absent
//   multiget          readrandom's keys in batches of batch_size: one MemTable::MultiGet
//                     each; a Get per key at the rep level, as RocksDB's MemTable::MultiGet
//   readseq           N readers, each num_scans full scans (SeekToFirst, Next...) with a
//                     new iterator
//   seekrandom        N readers, n Seeks (+ num_scans Nexts) with one iterator per thread
//   readwrite         1 writer (n new versions) + N-1 readers doing Gets until it finishes
//   seekwhilewriting  1 writer (n new versions) + N-1 readers doing Seek+Nexts, a new
//                     iterator per seek
//   mix8020           N threads, each 4 Gets then 1 Put of a new version, over and over
//                     (n operations in all: n/5 new versions; the columnar seed's 80/20 mix)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "entry_codec.h"
#include "flags.h"
#include "latency.h"
#include "memrep/status.h"
#include "reps.h"

namespace memrep::bench {

class Progress;

enum class WorkloadKind {
  kWrite,  // timed from an empty rep
  kRead,   // timed on a filled rep that nothing writes
  kMixed,  // timed on a filled rep: writes and reads at once
};

struct WorkloadInfo {
  std::string name;
  WorkloadKind kind;
};

const std::vector<WorkloadInfo>& KnownWorkloads();
// nullptr if `name` is not a workload.
const WorkloadInfo* FindWorkload(const std::string& name);

// Threads a workload runs with under these flags.
uint32_t WorkloadThreads(const WorkloadInfo& workload, const Flags& flags);

// The keys of one workload, drawn once and shared by every rep and repetition.
struct KeyPlan {
  uint64_t num_keys = 0;             // n
  std::vector<uint32_t> fill_order;  // key indexes, random order (fills, the read prefill)
  std::vector<uint32_t> write_keys;  // key indexes: overwrite, and the writer of mixed workloads
  std::vector<std::vector<uint32_t>> read_keys;  // per reader: key numbers (odd: absent)
};
KeyPlan MakeKeyPlan(const WorkloadInfo& workload, const Flags& flags);

// About how many bytes the rep will take from its arena in this workload
// (the write_buffer_size the reps are validated for when --write_buffer_size=0).
uint64_t ExpectedArenaBytes(const WorkloadInfo& workload, const Flags& flags);

// What a run needs besides the rep. Read-only, shared by all threads.
struct WorkloadInput {
  const Flags* flags = nullptr;
  const KeyCodec* keys = nullptr;
  const ValuePool* values = nullptr;
  const KeyPlan* plan = nullptr;
  Progress* progress = nullptr;  // may be null
  std::string label;             // for the progress line
  // The rep keeps one version per user key (a standalone peer that says so):
  // the checks after mix8020 expect each key's newest version only.
  bool single_version = false;

  // The input every run names: its flags, keys, values and plan.
  static WorkloadInput Of(const Flags& flags, const KeyCodec& keys, const ValuePool& values,
                          const KeyPlan& plan, Progress* progress = nullptr) {
    WorkloadInput input;
    input.flags = &flags;
    input.keys = &keys;
    input.values = &values;
    input.plan = &plan;
    input.progress = progress;
    return input;
  }
};

// One run of one workload on one rep.
struct Measurement {
  bool ok = true;
  std::string error;  // what check failed
  bool skipped = false;
  std::string note;
  // What drove the rep: kStandalone only for memrep's reps under --face=standalone.
  BenchFace face = BenchFace::kRep;

  uint32_t threads = 0;
  uint64_t ops = 0;  // writes of a write workload, reads/seeks/scanned entries otherwise
  double seconds = 0;
  double micros_per_op = 0;  // per thread doing the counted ops: seconds * threads / ops
  LatencySummary latency;    // of the counted ops
  uint64_t write_ops = 0;    // mixed workloads: the writer's
  double write_seconds = 0;
  uint64_t hits = 0, misses = 0;

  uint64_t entries = 0;  // in the rep when its memory was measured
  // After the timed phase. Rep level: arena bytes used + ApproximateMemoryUsage;
  // standalone face: MemTable::MemoryUsage() (arena blocks + the rep's own).
  uint64_t memory_bytes = 0;
  uint64_t arena_reserved_bytes = 0;  // whole blocks of the shim arena; 0 for the standalone face
  double create_micros = 0, destroy_micros = 0;
  // CPU time of memrep's background pool (BackgroundPool::CpuNanos) from the
  // rep's creation to its destruction, the untimed fill included; < 0: not
  // measured. Only memrep's reps do background work there.
  double background_cpu_seconds = -1;
  // Background CPU seconds per million entries, or < 0.
  double background_cpu_per_million() const {
    return background_cpu_seconds >= 0 && entries > 0
               ? background_cpu_seconds * 1e6 / static_cast<double>(entries)
               : -1;
  }

  double ops_per_second() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0; }
  double write_ops_per_second() const {
    return write_seconds > 0 ? static_cast<double>(write_ops) / write_seconds : 0;
  }
  double bytes_per_entry() const {
    return entries > 0 ? static_cast<double>(memory_bytes) / static_cast<double>(entries) : 0;
  }
};

// Why this rep cannot run this workload meaningfully, or "" if it can.
std::string SkipReason(const WorkloadInfo& workload, const RepFactory& factory, const Flags& flags);

// The whole run: a new rep, its untimed fill (read and mixed workloads), the
// timed phase and its checks, memory, destruction. Through the face the flags
// say: with --face=standalone, memrep's reps through memrep::MemTable
// (RunStandaloneWorkload) and RocksDB's at the rep level, noted
// kRepLevelNote.
Measurement RunWorkload(const WorkloadInfo& workload, const RepFactory& factory,
                        const WorkloadInput& input);
// The rep level's run (RocksDB's face), whatever the flags say.
// REQUIRES: the workload not skipped for the rep (SkipReason).
Measurement RunRepWorkload(const WorkloadInfo& workload, const RepFactory& factory,
                           const WorkloadInput& input);

// The pieces of RunWorkload, for tests.
// Writes the data set (key numbers 2j, sequence j+1, in fill order). Untimed.
Status FillDataSet(BenchRep& rep, const WorkloadInput& input);
// The timed phase of `workload` on `rep` as it is, then its checks.
Measurement RunPhase(const WorkloadInfo& workload, BenchRep& rep, const WorkloadInput& input);

}  // namespace memrep::bench
