// Write workloads: fillseq, fillrandom, fillbatch, concurrentfill, overwrite.
// Each is timed from an empty rep, and checked afterwards by a full scan.
#include <algorithm>
#include <span>

#include "workload_phases.h"

namespace memrep::bench {
namespace {

// One writer putting the data set in `order` (empty: in key order).
template <class Face>
Measurement FillPhase(Face& face, const WorkloadInput& in, const std::vector<uint32_t>& order) {
  const uint64_t n = in.plan->num_keys;
  Checker checker;
  ThreadRun run = RunTimed(in, 1, n, 1, [&](uint32_t, ThreadStats& stats) {
    typename Face::Writer writer(face, in, /*concurrent=*/false);
    for (uint64_t i = 0; i < n && !checker.failed(); ++i) {
      const uint64_t index = order.empty() ? i : order[i];
      bool inserted = false;
      MaybeTimed(stats.latency, [&] { inserted = writer.Put(2 * index, index + 1); });
      if (!inserted) checker.Fail(writer.Refusal("the new " + KeyName(2 * index)));
      stats.Count();
    }
  });
  Measurement m;
  Collect(run, 0, 1, &m);
  face.MeasureMemory(n, &m);
  TakeFailure(checker, &m);
  if (m.ok) TakeStatus(VerifyDataSet(face, in), "the scan after the fill", &m);
  return m;
}

}  // namespace

template <class Face>
Measurement FillSeqPhase(Face& face, const WorkloadInput& in) {
  return FillPhase(face, in, {});
}

template <class Face>
Measurement FillRandomPhase(Face& face, const WorkloadInput& in) {
  return FillPhase(face, in, in.plan->fill_order);
}

template <class Face>
Measurement FillBatchPhase(Face& face, const WorkloadInput& in) {
  const uint64_t n = in.plan->num_keys;
  const std::vector<uint32_t>& order = in.plan->fill_order;
  const uint64_t batch = in.flags->batch_size;
  Measurement m;
  if (order.size() != n) {
    TakeStatus(Status::InvalidArgument("the key plan has no fill order"), "fillbatch", &m);
    return m;
  }
  Checker checker;
  ThreadRun run = RunTimed(in, 1, n, 1, [&](uint32_t, ThreadStats& stats) {
    typename Face::Writer writer(face, in, /*concurrent=*/false);
    for (uint64_t i = 0; i < n && !checker.failed(); i += batch) {
      const std::span<const uint32_t> records(order.data() + i, std::min(batch, n - i));
      bool inserted = false;
      MaybeTimed(stats.latency, [&] { inserted = writer.PutBatch(records); });
      if (!inserted) {
        checker.Fail(writer.Refusal("a record of the batch at fill positions " + std::to_string(i) +
                                    ".." + std::to_string(i + records.size() - 1)));
      }
      stats.CountMany(records.size());
    }
  });
  Collect(run, 0, 1, &m);
  m.note = "batches of " + std::to_string(batch) + "; latency: one batch";
  face.MeasureMemory(n, &m);
  TakeFailure(checker, &m);
  if (m.ok) TakeStatus(VerifyDataSet(face, in), "the scan after the fill", &m);
  return m;
}

template <class Face>
Measurement ConcurrentFillPhase(Face& face, const WorkloadInput& in, uint32_t threads) {
  const uint64_t n = in.plan->num_keys;
  const std::vector<uint32_t>& order = in.plan->fill_order;
  Checker checker;
  ThreadRun run = RunTimed(in, threads, n, threads, [&](uint32_t t, ThreadStats& stats) {
    typename Face::Writer writer(face, in, /*concurrent=*/true);
    const uint64_t begin = n * t / threads, end = n * (t + 1) / threads;
    for (uint64_t i = begin; i < end && !checker.failed(); ++i) {
      const uint64_t index = order[i];
      bool inserted = false;
      MaybeTimed(stats.latency, [&] { inserted = writer.Put(2 * index, index + 1); });
      if (!inserted) checker.Fail(writer.Refusal("the new " + KeyName(2 * index)));
      stats.Count();
    }
  });
  Measurement m;
  Collect(run, 0, threads, &m);
  face.MeasureMemory(n, &m);
  TakeFailure(checker, &m);
  if (m.ok) TakeStatus(VerifyDataSet(face, in), "the scan after the fill", &m);
  return m;
}

template <class Face>
Measurement OverwritePhase(Face& face, const WorkloadInput& in) {
  const std::vector<uint32_t>& keys = in.plan->write_keys;
  const uint64_t n = keys.size();
  Measurement m;
  if (n == 0) {
    TakeStatus(Status::InvalidArgument("the key plan has no writes"), "overwrite", &m);
    return m;
  }
  Checker checker;
  ThreadRun run = RunTimed(in, 1, n, 1, [&](uint32_t, ThreadStats& stats) {
    typename Face::Writer writer(face, in, /*concurrent=*/false);
    for (uint64_t i = 0; i < n && !checker.failed(); ++i) {
      bool inserted = false;
      MaybeTimed(stats.latency, [&] { inserted = writer.Put(2 * uint64_t{keys[i]}, i + 1); });
      if (!inserted) checker.Fail(writer.Refusal("a new version of " + KeyName(2 * keys[i])));
      stats.Count();
    }
  });
  Collect(run, 0, 1, &m);
  face.MeasureMemory(n, &m);
  TakeFailure(checker, &m);
  if (!m.ok) return m;

  // Every version is stored, newest first; the newest is the last written.
  std::vector<SequenceNumber> newest(*std::max_element(keys.begin(), keys.end()) + uint64_t{1});
  for (uint64_t i = 0; i < n; ++i) newest[keys[i]] = i + 1;
  uint64_t count = 0;
  uint64_t current_key = UINT64_MAX;
  typename Face::Cursor cursor(face, in);
  Status s = ScanCursorInOrder(
      cursor,
      [&](const DecodedEntry& e) {
        // A version that was written: with count == n and the strict order
        // the scan checks, the rep holds exactly the written versions.
        if (e.seq == 0 || e.seq > n || 2 * uint64_t{keys[e.seq - 1]} != e.key_number) {
          return Status::InvalidArgument(KeyName(e.key_number) + " seq " + std::to_string(e.seq) +
                                         " was never written");
        }
        if (e.key_number != current_key) {
          current_key = e.key_number;
          if (newest[e.key_number / 2] != e.seq) {
            return Status::InvalidArgument("the newest version of " + KeyName(e.key_number) +
                                           " has seq " + std::to_string(e.seq));
          }
        }
        if (!in.values->Matches(e.value, e.seq)) {
          return Status::InvalidArgument("a wrong value for " + KeyName(e.key_number));
        }
        return Status::OK();
      },
      &count);
  TakeStatus(s, "the scan after overwrite", &m);
  if (m.ok && count != n) {
    TakeStatus(Status::InvalidArgument("found " + std::to_string(count) + " versions; expected " +
                                       std::to_string(n)),
               "the scan after overwrite", &m);
  }
  return m;
}

#define MEMREP_BENCH_WRITE_PHASES(Face)                                            \
  template Measurement FillSeqPhase(Face&, const WorkloadInput&);                  \
  template Measurement FillRandomPhase(Face&, const WorkloadInput&);               \
  template Measurement FillBatchPhase(Face&, const WorkloadInput&);                \
  template Measurement ConcurrentFillPhase(Face&, const WorkloadInput&, uint32_t); \
  template Measurement OverwritePhase(Face&, const WorkloadInput&);
MEMREP_BENCH_WRITE_PHASES(RepFace)
MEMREP_BENCH_WRITE_PHASES(TableFace)
#undef MEMREP_BENCH_WRITE_PHASES

}  // namespace memrep::bench
