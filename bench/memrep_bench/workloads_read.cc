// Read workloads on a filled rep that nothing writes: readrandom, readseq,
// seekrandom. Every answer is checked against the data set as it is read.
#include "workload_phases.h"

namespace memrep::bench {
namespace {

// Fails unless the plan has keys for `readers` readers.
bool HasReadKeys(const WorkloadInput& in, uint32_t readers, Measurement* m) {
  if (in.plan->read_keys.size() >= readers) return true;
  TakeStatus(Status::InvalidArgument("the key plan has no read keys for " +
                                     std::to_string(readers) + " readers"),
             "setup", m);
  return false;
}

// Hits must be exactly the reads of present keys.
void CheckHitCount(const WorkloadInput& in, uint32_t readers, Measurement* m) {
  if (!m->ok) return;
  uint64_t expected = 0;
  for (uint32_t t = 0; t < readers; ++t) {
    for (uint32_t key : in.plan->read_keys[t]) expected += (key % 2 == 0 ? 1 : 0);
  }
  if (m->hits != expected) {
    TakeStatus(Status::InvalidArgument(std::to_string(m->hits) + " hits; expected " +
                                       std::to_string(expected)),
               "the hit count", m);
  }
}

// The common end of a read phase: timings, hits and misses, memory, and the
// first failed check.
template <class Face>
void FinishReads(Face& face, const WorkloadInput& in, ThreadRun& run, uint32_t threads,
                 const std::vector<uint64_t>& hits, Checker& checker, Measurement* m) {
  Collect(run, 0, threads, m);
  for (uint64_t h : hits) m->hits += h;
  m->misses = m->ops - m->hits;
  face.MeasureMemory(in.plan->num_keys, m);
  TakeFailure(checker, m);
}

}  // namespace

template <class Face>
Measurement ReadRandomPhase(Face& face, const WorkloadInput& in, uint32_t threads) {
  Measurement m;
  if (!HasReadKeys(in, threads, &m)) return m;
  const VersionRule rule{in.plan->num_keys, /*rewrites=*/false};
  std::vector<uint64_t> hits(threads, 0);
  Checker checker;
  ThreadRun run =
      RunTimed(in, threads, in.plan->num_keys, threads, [&](uint32_t t, ThreadStats& stats) {
        typename Face::Reader reader(face, in);
        uint64_t found = 0;
        for (uint32_t key : in.plan->read_keys[t]) {
          if (checker.failed()) break;
          GetResult got;
          MaybeTimed(stats.latency, [&] { got = reader.Get(key); });
          if (!GetIsRight(key, got, rule)) checker.Fail(CheckGet(key, got, rule));
          found += got.found ? 1 : 0;
          stats.Count();
        }
        hits[t] = found;
      });
  FinishReads(face, in, run, threads, hits, checker, &m);
  CheckHitCount(in, threads, &m);
  return m;
}

template <class Face>
Measurement MultiGetPhase(Face& face, const WorkloadInput& in, uint32_t threads) {
  Measurement m;
  if (!HasReadKeys(in, threads, &m)) return m;
  const VersionRule rule{in.plan->num_keys, /*rewrites=*/false};
  const size_t batch = std::max<uint32_t>(1, in.flags->batch_size);
  std::vector<uint64_t> hits(threads, 0);
  Checker checker;
  ThreadRun run =
      RunTimed(in, threads, in.plan->num_keys, threads, [&](uint32_t t, ThreadStats& stats) {
        typename Face::Reader reader(face, in);
        const std::vector<uint32_t>& keys = in.plan->read_keys[t];
        std::vector<GetResult> got(batch);
        uint64_t found = 0;
        for (size_t first = 0; first < keys.size() && !checker.failed(); first += batch) {
          const std::span<const uint32_t> chunk(keys.data() + first,
                                                std::min(batch, keys.size() - first));
          MaybeTimed(stats.latency, [&] { reader.GetBatch(chunk, got.data()); });
          for (size_t i = 0; i < chunk.size(); ++i) {
            if (!GetIsRight(chunk[i], got[i], rule)) checker.Fail(CheckGet(chunk[i], got[i], rule));
            found += got[i].found ? 1 : 0;
          }
          stats.CountMany(chunk.size());
        }
        hits[t] = found;
      });
  FinishReads(face, in, run, threads, hits, checker, &m);
  CheckHitCount(in, threads, &m);
  m.note = "batches of " + std::to_string(batch) + "; latency: one batch";
  return m;
}

template <class Face>
Measurement ReadSeqPhase(Face& face, const WorkloadInput& in, uint32_t threads) {
  const uint64_t n = in.plan->num_keys;
  const uint32_t scans = std::max<uint32_t>(1, in.flags->num_scans);
  Checker checker;
  ThreadRun run =
      RunTimed(in, threads, n * scans * threads, threads, [&](uint32_t, ThreadStats& stats) {
        typename Face::Cursor cursor(face, in);
        for (uint32_t scan = 0; scan < scans && !checker.failed(); ++scan) {
          if (scan > 0) cursor.Renew();  // a new iterator per scan
          uint64_t index = 0;            // the key index the scan must be at
          MaybeTimed(stats.latency, [&] { cursor.SeekToFirst(); });
          while (cursor.Valid()) {
            const DecodedEntry e = cursor.entry();
            if (!e.ours || e.key_number != 2 * index || e.seq != index + 1 ||
                !in.values->Matches(e.value, e.seq)) {
              checker.Fail("scan " + std::to_string(scan) + " found " + KeyName(e.key_number) +
                           " seq " + std::to_string(e.seq) + "; expected " + KeyName(2 * index));
              return;
            }
            ++index;
            stats.Count();
            MaybeTimed(stats.latency, [&] { cursor.Next(); });
          }
          if (index != n) {
            checker.Fail("scan " + std::to_string(scan) + " found " + std::to_string(index) +
                         " entries; expected " + std::to_string(n));
          }
        }
      });
  Measurement m;
  Collect(run, 0, threads, &m);
  face.MeasureMemory(n, &m);
  TakeFailure(checker, &m);
  return m;
}

template <class Face>
Measurement SeekRandomPhase(Face& face, const WorkloadInput& in, uint32_t threads) {
  Measurement m;
  if (!HasReadKeys(in, threads, &m)) return m;
  const VersionRule rule{in.plan->num_keys, /*rewrites=*/false};
  std::vector<uint64_t> hits(threads, 0);
  Checker checker;
  ThreadRun run =
      RunTimed(in, threads, in.plan->num_keys, threads, [&](uint32_t t, ThreadStats& stats) {
        // One iterator per thread, as db_bench's seekrandom: nothing writes, so it
        // sees everything. Its creation is timed (a full copy for the hash reps).
        typename Face::Cursor cursor(face, in);
        uint64_t exact = 0;
        for (uint32_t key : in.plan->read_keys[t]) {
          if (checker.failed()) break;
          std::string error;
          MaybeTimed(stats.latency, [&] {
            error = SeekAndCheck(cursor, key, in.flags->num_scans, *in.values, rule);
          });
          if (!error.empty()) checker.Fail(error);
          exact += key % 2 == 0 ? 1 : 0;  // a present target: the seek lands on it (checked)
          stats.Count();
        }
        hits[t] = exact;
      });
  FinishReads(face, in, run, threads, hits, checker, &m);
  return m;
}

#define MEMREP_BENCH_READ_PHASES(Face)                                         \
  template Measurement ReadRandomPhase(Face&, const WorkloadInput&, uint32_t); \
  template Measurement ReadSeqPhase(Face&, const WorkloadInput&, uint32_t);    \
  template Measurement MultiGetPhase(Face&, const WorkloadInput&, uint32_t);   \
  template Measurement SeekRandomPhase(Face&, const WorkloadInput&, uint32_t);
MEMREP_BENCH_READ_PHASES(RepFace)
MEMREP_BENCH_READ_PHASES(TableFace)
MEMREP_BENCH_READ_PHASES(TrieTableFace)
#undef MEMREP_BENCH_READ_PHASES

}  // namespace memrep::bench
