// What the workload phases share: running threads, collecting their counts,
// and the data set's fill and check.
#include "progress.h"
#include "workload_phases.h"

namespace memrep::bench {

ThreadRun RunTimed(const WorkloadInput& in, uint32_t threads, uint64_t expected_ops,
                   uint32_t progress_threads,
                   const std::function<void(uint32_t, ThreadStats&)>& body) {
  return RunThreads(threads, in.flags->latency_sample_every, in.flags->seed, in.progress,
                    expected_ops, progress_threads, body);
}

void Collect(ThreadRun& run, uint32_t first, uint32_t count, Measurement* m) {
  std::vector<uint32_t> samples;
  for (uint32_t i = first; i < first + count && i < run.threads.size(); ++i) {
    ThreadStats& t = *run.threads[i];
    m->ops += t.ops;
    samples.insert(samples.end(), t.latency.samples().begin(), t.latency.samples().end());
  }
  m->threads = static_cast<uint32_t>(run.threads.size());
  m->seconds = run.seconds;
  m->latency = Summarize(&samples);
  if (m->ops > 0) m->micros_per_op = run.seconds * 1e6 * count / static_cast<double>(m->ops);
}

void TakeFailure(const Checker& checker, Measurement* m) {
  if (!checker.failed() || !m->ok) return;
  m->ok = false;
  m->error = checker.message();
}

void TakeStatus(const Status& s, const std::string& when, Measurement* m) {
  if (s.ok() || !m->ok) return;
  m->ok = false;
  m->error = when + ": " + s.message();
}

template <class Face>
Status FillDataSetOn(Face& face, const WorkloadInput& in) {
  const KeyPlan& plan = *in.plan;
  if (in.progress != nullptr) in.progress->SetLabel(in.label + " (untimed fill)");
  Checker checker;
  RunTimed(in, 1, plan.num_keys, 1, [&](uint32_t, ThreadStats& stats) {
    typename Face::Writer writer(face, in, /*concurrent=*/false);
    for (uint64_t i = 0; i < plan.num_keys; ++i) {
      const uint64_t index = plan.fill_order.empty() ? i : plan.fill_order[i];
      if (!writer.Put(2 * index, index + 1)) {
        checker.Fail(writer.Refusal(KeyName(2 * index)));
        return;
      }
      stats.Count();
    }
  });
  if (in.progress != nullptr) in.progress->SetLabel(in.label);
  if (checker.failed()) return Status::InvalidArgument(checker.message());
  return Status::OK();
}

Status FillDataSet(BenchRep& rep, const WorkloadInput& in) {
  RepFace face(rep);
  return FillDataSetOn(face, in);
}

template <class Face>
Status VerifyDataSet(Face& face, const WorkloadInput& in) {
  const uint64_t n = in.plan->num_keys;
  uint64_t expected = 0;  // the next key index the scan must find
  uint64_t count = 0;
  typename Face::Cursor cursor(face, in);
  Status s = ScanCursorInOrder(
      cursor,
      [&](const DecodedEntry& e) {
        if (e.key_number != 2 * expected || e.seq != expected + 1 ||
            !in.values->Matches(e.value, e.seq)) {
          return Status::InvalidArgument(
              "scan found " + KeyName(e.key_number) + " seq " + std::to_string(e.seq) +
              "; expected " + KeyName(2 * expected) + " seq " + std::to_string(expected + 1));
        }
        ++expected;
        return Status::OK();
      },
      &count);
  if (!s.ok()) return s;
  if (count != n) {
    return Status::InvalidArgument("scan found " + std::to_string(count) + " entries; expected " +
                                   std::to_string(n));
  }
  return Status::OK();
}

template Status FillDataSetOn(RepFace&, const WorkloadInput&);
template Status FillDataSetOn(TableFace&, const WorkloadInput&);
template Status VerifyDataSet(RepFace&, const WorkloadInput&);
template Status VerifyDataSet(TableFace&, const WorkloadInput&);

}  // namespace memrep::bench
