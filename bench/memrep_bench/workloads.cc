// The workload catalogue, key plans, and a whole run of one workload.
#include "workloads.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

#include "concurrency/background_pool.h"
#include "concurrency/shared_writes.h"
#include "progress.h"
#include "workload_phases.h"

namespace memrep::bench {
namespace {

// Purposes of the random streams (StreamSeed).
enum : uint64_t { kFillStream = 1, kWriteStream = 2, kReadStream = 3 };

std::vector<uint32_t> DrawReads(uint64_t count, const KeyChooser& chooser, double miss_ratio,
                                uint64_t seed) {
  Random64 rng(seed);
  std::vector<uint32_t> keys(count);
  for (uint32_t& key : keys) {
    const uint64_t index = chooser.Next(rng);
    const bool miss = rng.NextDouble() < miss_ratio;
    key = static_cast<uint32_t>(2 * index + (miss ? 1 : 0));
  }
  return keys;
}

}  // namespace

const std::vector<WorkloadInfo>& KnownWorkloads() {
  static const std::vector<WorkloadInfo> workloads = {
      {"fillrandom", WorkloadKind::kWrite},       {"fillseq", WorkloadKind::kWrite},
      {"fillbatch", WorkloadKind::kWrite},        {"overwrite", WorkloadKind::kWrite},
      {"concurrentfill", WorkloadKind::kWrite},   {"readrandom", WorkloadKind::kRead},
      {"readseq", WorkloadKind::kRead},           {"seekrandom", WorkloadKind::kRead},
      {"multiget", WorkloadKind::kRead},          {"readwrite", WorkloadKind::kMixed},
      {"seekwhilewriting", WorkloadKind::kMixed}, {"mix8020", WorkloadKind::kMixed},
  };
  return workloads;
}

const WorkloadInfo* FindWorkload(const std::string& name) {
  for (const WorkloadInfo& w : KnownWorkloads()) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

uint32_t WorkloadThreads(const WorkloadInfo& workload, const Flags& flags) {
  if (workload.name == "fillrandom" || workload.name == "fillseq" || workload.name == "fillbatch" ||
      workload.name == "overwrite") {
    return 1;
  }
  if (workload.name == "mix8020") return flags.num_threads;
  if (workload.name == "concurrentfill" || workload.kind == WorkloadKind::kMixed) {
    return std::max<uint32_t>(2, flags.num_threads);
  }
  return flags.num_threads;
}

KeyPlan MakeKeyPlan(const WorkloadInfo& workload, const Flags& flags) {
  KeyPlan plan;
  const uint64_t n = flags.num_operations;
  plan.num_keys = n;
  const uint32_t threads = WorkloadThreads(workload, flags);
  if (workload.name != "fillseq" && workload.name != "overwrite") {
    plan.fill_order = ShuffledIndices(n, StreamSeed(flags.seed, kFillStream, 0));
  }
  if (workload.name == "overwrite" || workload.kind == WorkloadKind::kMixed) {
    const uint64_t space =
        workload.name == "overwrite" ? std::max<uint64_t>(1, n / flags.versions_per_key) : n;
    const KeyChooser chooser(flags.key_distribution, space, flags.zipf_theta);
    Random64 rng(StreamSeed(flags.seed, kWriteStream, 0));
    plan.write_keys.resize(n);
    for (uint32_t& key : plan.write_keys) key = static_cast<uint32_t>(chooser.Next(rng));
  }
  if (workload.name == "readrandom" || workload.name == "multiget" ||
      workload.name == "seekrandom" || workload.kind == WorkloadKind::kMixed) {
    const KeyChooser chooser(flags.key_distribution, n, flags.zipf_theta);
    // readwrite and seekwhilewriting: a writer and threads - 1 readers.
    const bool mixed = workload.kind == WorkloadKind::kMixed && workload.name != "mix8020";
    const uint32_t readers = mixed ? threads - 1 : threads;
    for (uint32_t t = 0; t < readers; ++t) {
      // Mixed readers run until the writer is done: each gets n keys, reused
      // cyclically; other readers share n operations.
      const uint64_t count = mixed ? n : n / readers + (t < n % readers ? 1 : 0);
      plan.read_keys.push_back(
          DrawReads(count, chooser, flags.read_miss_ratio, StreamSeed(flags.seed, kReadStream, t)));
    }
  }
  return plan;
}

uint64_t ExpectedArenaBytes(const WorkloadInfo& workload, const Flags& flags) {
  const uint64_t entries = flags.num_operations * (workload.kind == WorkloadKind::kMixed ? 2 : 1);
  // The entry, and a rep header of about 16 bytes per entry.
  return entries * (RowSize(flags.key_size, flags.item_size) + 16);
}

std::string SkipReason(const WorkloadInfo& workload, const RepFactory& factory,
                       const Flags& flags) {
  const RepTraits& traits = factory.traits();
  if (factory.standalone_peer() && flags.face != BenchFace::kStandalone) {
    return "no RocksDB face: a standalone peer runs through memrep::MemTable only "
           "(--face=standalone)";
  }
  // The checks of these count every version of a key; a rep that keeps one
  // per key (a write overwrites it) cannot pass them.
  if (factory.single_version() &&
      (workload.name == "overwrite" ||
       (workload.kind == WorkloadKind::kMixed && workload.name != "mix8020"))) {
    return "single version per key: a write overwrites the key's record, and this "
           "workload's checks count every version";
  }
  if (flags.face == BenchFace::kTrieTable && factory.memrep()) {
    if (workload.kind != WorkloadKind::kRead) {
      return "a trie table takes no writes (--face=standalone runs this on the live memtable)";
    }
    const std::string reason = TrieTableSkipReason(factory);
    if (!reason.empty()) return reason;
  }
  if ((workload.name == "concurrentfill" ||
       (workload.name == "mix8020" && WorkloadThreads(workload, flags) > 1)) &&
      !traits.concurrent_insert) {
    return "no concurrent inserts (IsInsertConcurrentlySupported() is false)";
  }
  // A point read that costs a scan or a sort of the whole mutable rep.
  if (traits.point_read_while_mutable == RepTraits::Cost::kLinear) {
    if (workload.name == "readrandom" && !flags.freeze_before_reads) {
      return "each Get costs a scan or sort of the whole mutable rep (runs with "
             "--freeze_before_reads)";
    }
    if (workload.kind == WorkloadKind::kMixed) {
      return "each Get costs a scan or sort of the whole rep while it is written";
    }
  }
  return "";
}

namespace {

// Runs a workload (a rep made, filled, timed and destroyed) and adds the CPU
// time memrep's background pool spent meanwhile. The pool is drained after
// the rep is gone, so that the cancelled remains of its work are counted
// here and not in the next workload.
uint64_t MinorFaults() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_minflt);
}

// A build with MEMREP_COUNT_SHARED=ON (the contention audit, docs/trie.md)
// prints, for each timed phase, the shared writes it counted and the minor
// page faults the process took, per counted operation, on stderr.
class SharedWriteReport {
 public:
  SharedWriteReport() {
    if (concurrency::kCountingSharedWrites) {
      before_ = concurrency::SharedWriteTotalsNow();
      faults_ = MinorFaults();
    }
  }
  void Print(const std::string& label, const Measurement& m) const {
    if (!concurrency::kCountingSharedWrites || !m.ok || m.ops == 0) return;
    const concurrency::SharedWriteTotals after = concurrency::SharedWriteTotalsNow();
    const double ops = double(m.ops);
    std::fprintf(stderr, "shared writes per op: %s threads=%u ops=%llu minflt=%.4f", label.c_str(),
                 m.threads, static_cast<unsigned long long>(m.ops),
                 double(MinorFaults() - faults_) / ops);
    for (size_t i = 0; i < static_cast<size_t>(concurrency::SharedWrite::kCount); ++i) {
      const uint64_t n = after.n[i] - before_.n[i];
      if (n != 0)
        std::fprintf(stderr, " %s=%.4g", concurrency::kSharedWriteNames[i], double(n) / ops);
    }
    std::fprintf(stderr, "\n");
  }

 private:
  concurrency::SharedWriteTotals before_;
  uint64_t faults_ = 0;
};

template <typename Fn>
Measurement WithBackgroundCpu(Fn&& run) {
  concurrency::BackgroundPool& pool = concurrency::BackgroundPool::Shared();
  pool.Drain();
  const uint64_t start = pool.CpuNanos();
  Measurement m = run();
  pool.Drain();
  if (m.ok && !m.skipped) m.background_cpu_seconds = double(pool.CpuNanos() - start) / 1e9;
  return m;
}

}  // namespace

Measurement RunWorkload(const WorkloadInfo& workload, const RepFactory& factory,
                        const WorkloadInput& input) {
  Measurement m;
  m.threads = WorkloadThreads(workload, *input.flags);
  const BenchFace face = input.flags->face;
  const bool standalone = factory.memrep() || factory.standalone_peer();
  if (standalone) m.face = face;
  const std::string skip = SkipReason(workload, factory, *input.flags);
  if (!skip.empty()) {
    m.skipped = true;
    m.note = "skipped: " + skip;
    return m;
  }
  if (face == BenchFace::kTrieTable && factory.memrep()) {
    return RunTrieTableWorkload(workload, factory, input);
  }
  if (face != BenchFace::kRep) {
    if (standalone) {
      WorkloadInput in = input;
      in.single_version = factory.single_version();
      return WithBackgroundCpu([&] { return RunStandaloneWorkload(workload, factory, in); });
    }
    m = WithBackgroundCpu([&] { return RunRepWorkload(workload, factory, input); });
    m.note = m.note.empty() ? kRepLevelNote : std::string(kRepLevelNote) + "; " + m.note;
    return m;
  }
  return WithBackgroundCpu([&] { return RunRepWorkload(workload, factory, input); });
}

Measurement RunRepWorkload(const WorkloadInfo& workload, const RepFactory& factory,
                           const WorkloadInput& input) {
  Measurement m;
  std::unique_ptr<BenchRep> rep;
  Status s = factory.NewRep(&rep);
  if (!s.ok()) {
    m.ok = false;
    m.error = s.message();
    return m;
  }
  if (workload.kind != WorkloadKind::kWrite) {
    s = FillDataSet(*rep, input);
    if (!s.ok()) {
      m.ok = false;
      m.error = "the untimed fill before " + workload.name + " failed: " + s.message();
      return m;
    }
    if (workload.kind == WorkloadKind::kRead && input.flags->freeze_before_reads) {
      rep->rep().MarkReadOnly();
    }
  }
  const double create_micros = rep->create_micros();
  const SharedWriteReport shared_writes;
  m = RunPhase(workload, *rep, input);
  shared_writes.Print(input.label, m);
  m.create_micros = create_micros;
  m.destroy_micros = rep->Destroy();
  return m;
}

Measurement RunPhase(const WorkloadInfo& workload, BenchRep& rep, const WorkloadInput& in) {
  RepFace face(rep);
  return RunPhaseOn(workload, face, in);
}

template <class Face>
Measurement RunPhaseOn(const WorkloadInfo& workload, Face& face, const WorkloadInput& in) {
  const uint32_t threads = WorkloadThreads(workload, *in.flags);
  const std::string& name = workload.name;
  if (workload.kind == WorkloadKind::kRead) return RunReadPhaseOn(workload, face, in);
  if (in.progress != nullptr) in.progress->SetLabel(in.label);
  if (name == "fillseq") return FillSeqPhase(face, in);
  if (name == "fillrandom") return FillRandomPhase(face, in);
  if (name == "fillbatch") return FillBatchPhase(face, in);
  if (name == "concurrentfill") return ConcurrentFillPhase(face, in, threads);
  if (name == "overwrite") return OverwritePhase(face, in);
  if (name == "readwrite") return MixedPhase(face, in, threads, /*seeks=*/false);
  if (name == "seekwhilewriting") return MixedPhase(face, in, threads, /*seeks=*/true);
  if (name == "mix8020") return Mix8020Phase(face, in, threads);
  Measurement m;
  m.ok = false;
  m.error = "unknown workload " + name;
  return m;
}

template <class Face>
Measurement RunReadPhaseOn(const WorkloadInfo& workload, Face& face, const WorkloadInput& in) {
  const uint32_t threads = WorkloadThreads(workload, *in.flags);
  const std::string& name = workload.name;
  if (in.progress != nullptr) in.progress->SetLabel(in.label);
  if (name == "readrandom") return ReadRandomPhase(face, in, threads);
  if (name == "multiget") return MultiGetPhase(face, in, threads);
  if (name == "readseq") return ReadSeqPhase(face, in, threads);
  if (name == "seekrandom") return SeekRandomPhase(face, in, threads);
  Measurement m;
  m.ok = false;
  m.error = "unknown read workload " + name;
  return m;
}

template Measurement RunPhaseOn(const WorkloadInfo&, RepFace&, const WorkloadInput&);
template Measurement RunPhaseOn(const WorkloadInfo&, TableFace&, const WorkloadInput&);
template Measurement RunReadPhaseOn(const WorkloadInfo&, TrieTableFace&, const WorkloadInput&);

}  // namespace memrep::bench
