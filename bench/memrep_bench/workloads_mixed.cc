// Mixed workloads on a filled rep: one writer adds n new versions (InsertKey,
// the single-writer path) while the other threads read until it is done —
// point reads (readwrite) or a new iterator, Seek and Nexts (seekwhilewriting);
// or every thread reads and writes, 4 Gets to a Put (mix8020). Readers accept
// either the version of the fill or a newer one of the writers'; afterwards a
// scan checks that every version is there.
#include <algorithm>
#include <atomic>
#include <optional>

#include "workload_phases.h"

namespace memrep::bench {
namespace {

// After the run: the fill's n versions and the writers' `written` (those of
// write_keys[0, written), with sequences n + 1 + i), nothing else.
template <class Face>
Status VerifyAfterWrites(Face& face, const WorkloadInput& in, uint64_t written) {
  const uint64_t n = in.plan->num_keys;
  const std::vector<uint32_t>& writes = in.plan->write_keys;
  uint64_t count = 0;
  typename Face::Cursor cursor(face, in);
  Status s = ScanCursorInOrder(
      cursor,
      [&](const DecodedEntry& e) {
        const bool fill_version =
            e.key_number % 2 == 0 && e.key_number / 2 < n && e.seq == e.key_number / 2 + 1;
        const bool writer_version = e.seq > n && e.seq <= n + written &&
                                    2 * uint64_t{writes[e.seq - n - 1]} == e.key_number;
        if ((!fill_version && !writer_version) || !in.values->Matches(e.value, e.seq)) {
          return Status::InvalidArgument(KeyName(e.key_number) + " seq " + std::to_string(e.seq) +
                                         " was never written");
        }
        return Status::OK();
      },
      &count);
  if (!s.ok()) return s;
  if (count != n + written) {
    return Status::InvalidArgument("found " + std::to_string(count) + " versions; expected " +
                                   std::to_string(n + written));
  }
  return Status::OK();
}

// After mix8020 on a rep that keeps one version per key: each of the n keys
// once, with its newest version (the fill's, or the last a writer wrote);
// with concurrent writers (`newest_only` false), with any version written to
// it, since such a rep may keep the last write whatever its sequence.
template <class Face>
Status VerifyNewestAfterWrites(Face& face, const WorkloadInput& in, uint64_t written,
                               bool newest_only) {
  const uint64_t n = in.plan->num_keys;
  const std::vector<uint32_t>& writes = in.plan->write_keys;
  std::vector<SequenceNumber> newest(n);
  for (uint64_t j = 0; j < n; ++j) newest[j] = j + 1;
  for (uint64_t i = 0; i < written; ++i) newest[writes[i]] = std::max(newest[writes[i]], n + 1 + i);
  uint64_t count = 0;
  typename Face::Cursor cursor(face, in);
  Status s = ScanCursorInOrder(
      cursor,
      [&](const DecodedEntry& e) {
        const bool written_to_key =
            e.seq == e.key_number / 2 + 1 || (e.seq > n && e.seq <= n + written &&
                                              2 * uint64_t{writes[e.seq - n - 1]} == e.key_number);
        if (e.key_number % 2 != 0 || e.key_number / 2 >= n || !written_to_key ||
            (newest_only && e.seq != newest[e.key_number / 2]) ||
            !in.values->Matches(e.value, e.seq)) {
          return Status::InvalidArgument(KeyName(e.key_number) + " seq " + std::to_string(e.seq) +
                                         " is not the key's newest version");
        }
        return Status::OK();
      },
      &count);
  if (!s.ok()) return s;
  if (count != n) {
    return Status::InvalidArgument("found " + std::to_string(count) + " keys; expected " +
                                   std::to_string(n));
  }
  return Status::OK();
}

}  // namespace

template <class Face>
Measurement MixedPhase(Face& face, const WorkloadInput& in, uint32_t threads, bool seeks) {
  Measurement m;
  const uint64_t n = in.plan->num_keys;
  const std::vector<uint32_t>& writes = in.plan->write_keys;
  if (writes.size() != n || in.plan->read_keys.size() < threads - 1) {
    TakeStatus(Status::InvalidArgument("the key plan does not fit a mixed workload"), "setup", &m);
    return m;
  }
  const VersionRule rule{n, /*rewrites=*/true};
  std::atomic<bool> writer_done{false};
  std::vector<uint64_t> hits(threads, 0);
  Checker checker;
  ThreadRun run = RunTimed(in, threads, n, 1, [&](uint32_t t, ThreadStats& stats) {
    if (t == 0) {
      typename Face::Writer writer(face, in, /*concurrent=*/false);
      for (uint64_t i = 0; i < n && !checker.failed(); ++i) {
        const uint64_t key = 2 * uint64_t{writes[i]};
        if (!writer.Put(key, n + 1 + i)) {
          checker.Fail(writer.Refusal("a new version of " + KeyName(key)));
        }
        stats.Count();
      }
      // release: nothing to publish; the readers only need to see the flag.
      writer_done.store(true, std::memory_order_release);
      return;
    }
    const std::vector<uint32_t>& mine = in.plan->read_keys[t - 1];
    typename Face::Reader reader(face, in);
    std::optional<typename Face::Cursor> cursor;  // seeks only; made at the first
    uint64_t found = 0;
    size_t i = 0;
    // At least one read each, then until the writer is done.
    do {
      const uint32_t key = mine[i];
      i = i + 1 == mine.size() ? 0 : i + 1;
      if (seeks) {
        std::string error;
        MaybeTimed(stats.latency, [&] {
          // A new iterator per seek: one made earlier would not see new writes.
          if (cursor.has_value()) {
            cursor->Renew();
          } else {
            cursor.emplace(face, in);
          }
          error = SeekAndCheck(*cursor, key, in.flags->num_scans, *in.values, rule);
        });
        if (!error.empty()) checker.Fail(error);
        found += key % 2 == 0 ? 1 : 0;
      } else {
        GetResult got;
        MaybeTimed(stats.latency, [&] { got = reader.Get(key); });
        if (!GetIsRight(key, got, rule)) checker.Fail(CheckGet(key, got, rule));
        found += got.found ? 1 : 0;
      }
      stats.Count();
    } while (!writer_done.load(std::memory_order_acquire) && !checker.failed());
    hits[t] = found;
  });
  Collect(run, 1, threads - 1, &m);
  for (uint64_t h : hits) m.hits += h;
  m.misses = m.ops - m.hits;
  const ThreadStats& writer = *run.threads[0];
  m.write_ops = writer.ops;
  m.write_seconds = Seconds(writer.end - writer.start);
  face.MeasureMemory(2 * n, &m);
  TakeFailure(checker, &m);
  if (m.ok) TakeStatus(VerifyAfterWrites(face, in, n), "the scan after the writes", &m);
  return m;
}

template <class Face>
Measurement Mix8020Phase(Face& face, const WorkloadInput& in, uint32_t threads) {
  Measurement m;
  const uint64_t n = in.plan->num_keys;
  const std::vector<uint32_t>& writes = in.plan->write_keys;
  if (writes.size() != n || in.plan->read_keys.size() < threads) {
    TakeStatus(Status::InvalidArgument("the key plan does not fit mix8020"), "setup", &m);
    return m;
  }
  // n operations in all: n / 5 new versions, write_keys[w] with sequence
  // n + 1 + w, each after 4 Gets of the writing thread's read keys. The
  // threads take w from one counter, so sequences grow with time across
  // threads, as a database hands them out: a version is never older than
  // the ones already written by more than the writes in flight. (Slices
  // per thread would give one thread's versions sequences older than all of
  // the other's for the whole run, which no RocksDB write path does, and a
  // rep that keeps a key's versions in sequence order would step over the
  // newer ones at every insert of a hot key.)
  const uint64_t written = n / 5;
  const VersionRule rule{n, /*rewrites=*/true};
  std::vector<uint64_t> hits(threads, 0);
  std::vector<uint64_t> puts(threads, 0);
  std::atomic<uint64_t> next_write{0};
  Checker checker;
  ThreadRun run = RunTimed(in, threads, n, threads, [&](uint32_t t, ThreadStats& stats) {
    typename Face::Writer writer(face, in, /*concurrent=*/threads > 1);
    typename Face::Reader reader(face, in);
    const std::vector<uint32_t>& mine = in.plan->read_keys[t];
    size_t r = 0;
    uint64_t found = 0, mine_written = 0;
    // relaxed: only hands out distinct indexes; the Puts publish themselves.
    for (uint64_t w = next_write.fetch_add(1, std::memory_order_relaxed);
         w < written && !checker.failed(); w = next_write.fetch_add(1, std::memory_order_relaxed)) {
      ++mine_written;
      for (int g = 0; g < 4; ++g) {
        const uint32_t key = mine[r];
        r = r + 1 == mine.size() ? 0 : r + 1;
        GetResult got;
        MaybeTimed(stats.latency, [&] { got = reader.Get(key); });
        if (!GetIsRight(key, got, rule)) checker.Fail(CheckGet(key, got, rule));
        found += got.found ? 1 : 0;
        stats.Count();
      }
      const uint64_t key = 2 * uint64_t{writes[w]};
      bool put = false;
      MaybeTimed(stats.latency, [&] { put = writer.Put(key, n + 1 + w); });
      if (!put) checker.Fail(writer.Refusal("a new version of " + KeyName(key)));
      stats.Count();
    }
    hits[t] = found;
    puts[t] = mine_written;
  });
  Collect(run, 0, threads, &m);
  for (uint64_t h : hits) m.hits += h;
  for (uint64_t p : puts) m.write_ops += p;
  m.write_seconds = m.seconds;
  m.misses = m.ops - m.write_ops - m.hits;
  face.MeasureMemory(n + written, &m);
  TakeFailure(checker, &m);
  if (m.ok) {
    TakeStatus(in.single_version ? VerifyNewestAfterWrites(face, in, written, threads == 1)
                                 : VerifyAfterWrites(face, in, written),
               "the scan after the writes", &m);
  }
  m.note = "4 Gets to 1 Put; op = either";
  return m;
}

template Measurement MixedPhase(RepFace&, const WorkloadInput&, uint32_t, bool);
template Measurement MixedPhase(TableFace&, const WorkloadInput&, uint32_t, bool);
template Measurement Mix8020Phase(RepFace&, const WorkloadInput&, uint32_t);
template Measurement Mix8020Phase(TableFace&, const WorkloadInput&, uint32_t);

}  // namespace memrep::bench
