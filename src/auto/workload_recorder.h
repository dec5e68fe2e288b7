// WorkloadRecorder: one memtable's WorkloadStats, counted on the hot paths
// with no shared counter.
//
// Counters live in 16 shards (concurrency::PerThread: each on cache lines of
// its own); a thread counts in the shard of its ThreadSlot (the first 16
// threads of the process each have their own). A count is a relaxed load
// and a relaxed store of the thread's own line, as cheap as a plain
// increment: no locked instruction, no line bouncing between writers.
//
// Invariants and memory orders:
//  - Every counter only grows, except when two threads that share a shard
//    (slots equal modulo 16) count at the same instant: one increment may
//    then be lost. Statistics are an estimate; nothing is ordered by them.
//  - Snapshot sums the shards with relaxed loads, from any thread, at any
//    time: a sum may miss the last increments of a running thread.
//  - Key sampling keeps the previous sampled key per shard in the shard's
//    buffer, written only by a thread of that shard; a reader never reads
//    it. Two threads sharing a shard may interleave their writes to it: the
//    buffer is an atomic byte array, so that is a wrong prefix length (an
//    estimate), never a data race.
//  - A shard's first and latest timed instants (AddTimeAt) are relaxed
//    stores of its own threads: two threads of one shard may mix them, which
//    makes the shard's span an estimate, like its counts.
//  - Sampled times (AddTime) are counters like the others; a sample that
//    shows its thread lost its core is left out (kPreemptedNanos). The background
//    figure is stored once, by the rep's destructor (SetBackground, release),
//    and read with acquire: a reader that sees `final` sees the figure.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "auto/clock.h"
#include "concurrency/per_thread.h"
#include "memrep/auto.h"

namespace memrep::auto_rep {

class WorkloadRecorder {
 public:
  enum Counter : uint32_t {
    kInserts,
    kConcurrentInserts,
    kBatches,
    kBatchEntries,
    kEntryBytes,
    kGets,
    kSampledGets,
    kSampledHits,
    kIterators,
    kSeeks,
    kSteps,
    kSampledKeys,
    kSampledKeyBytes,
    kSampledSharedBytes,
    kCounters
  };
  // The kinds of call whose time is sampled (OpTimes of WorkloadStats).
  enum Timed : uint32_t {
    kTimeInsert,
    kTimeConcurrentInsert,
    kTimeBatchEntry,
    kTimeAllocate,
    kTimeGet,
    kTimeSeek,
    kTimeStep,
    kTimeIterator,
    kTimedKinds
  };
  // One in this many inserts has its key sampled; one in kGetSampleEvery
  // gets has its outcome looked at.
  static constexpr uint32_t kKeySampleEvery = 64;
  static constexpr uint32_t kGetSampleEvery = 16;
  static constexpr size_t kSampledPrefix = 32;  // bytes of a key kept to compare with the next

  explicit WorkloadRecorder(bool bytewise) : bytewise_(bytewise) {}

  // Adds `n` to a counter of the calling thread's shard.
  void Add(Counter counter, uint64_t n = 1) {
    std::atomic<uint64_t>& c = Mine().counts[counter];
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  // Counts `bytes` bytes of entries written and says whether one of their
  // keys should be sampled (SampleKey): one call in kKeySampleEvery.
  bool CountAllocation(uint64_t bytes) {
    Shard& s = Mine();
    Bump(s.counts[kEntryBytes], bytes);
    return ++Tick(s) % kKeySampleEvery == 0;
  }

  // Whether this get's outcome should be looked at (CountGetOutcome).
  bool CountGet() {
    Shard& s = Mine();
    Bump(s.counts[kGets], 1);
    return ++TickRef{s.get_tick} % kGetSampleEvery == 0;
  }
  void CountGetOutcome(bool hit) {
    Shard& s = Mine();
    Bump(s.counts[kSampledGets], 1);
    if (hit) Bump(s.counts[kSampledHits], 1);
  }

  // Records a sampled user key: its size, and the bytes it shares with the
  // previous key sampled in this shard.
  void SampleKey(std::string_view user_key) {
    Shard& s = Mine();
    const size_t keep = std::min(user_key.size(), kSampledPrefix);
    const size_t prev_len = s.prev_len.load(std::memory_order_relaxed);
    size_t shared = 0;
    const size_t limit = std::min(keep, prev_len);
    while (shared < limit && s.prev[shared].load(std::memory_order_relaxed) == user_key[shared]) {
      ++shared;
    }
    for (size_t i = 0; i < keep; ++i) s.prev[i].store(user_key[i], std::memory_order_relaxed);
    s.prev_len.store(keep, std::memory_order_relaxed);
    if (prev_len == 0) return;  // the shard's first sample has nothing to compare with
    Bump(s.counts[kSampledKeys], 1);
    Bump(s.counts[kSampledKeyBytes], user_key.size());
    Bump(s.counts[kSampledSharedBytes], shared);
  }

  // A single call of these kinds (a step, a get, an insert, an Allocate)
  // that took longer than this did not spend it in the rep: its thread lost
  // its core (a time slice is milliseconds). Such a sample is left out, so
  // that a busy machine does not price a rep by the scheduler. Seeks, new
  // iterators and batches keep every sample: they may sort or merge by
  // themselves for that long.
  static constexpr uint64_t kPreemptedNanos = 200000;
  static constexpr bool MayRunLong(Timed kind) {
    return kind == kTimeSeek || kind == kTimeIterator || kind == kTimeBatchEntry;
  }

  // Adds one timed call (or `n` entries of a timed batch) that took `nanos`.
  void AddTime(Timed kind, uint64_t nanos, uint64_t n = 1) {
    if (!MayRunLong(kind) && nanos > kPreemptedNanos * n) return;
    Shard& s = Mine();
    Bump(s.timed[kind], n);
    Bump(s.nanos[kind], nanos);
  }

  // AddTime for a call timed from t0 to t1 (Now() readings), which also
  // marks the calling thread's shard as about from t0 (its first such call)
  // to t1 (its last so far).
  void AddTimeAt(Timed kind, uint64_t t0, uint64_t t1, uint64_t n = 1) {
    Shard& s = Mine();
    if (s.first_ns.load(std::memory_order_relaxed) == 0) {
      s.first_ns.store(t0, std::memory_order_relaxed);
    }
    s.last_ns.store(t1, std::memory_order_relaxed);
    AddTime(kind, Elapsed(t0, t1), n);
  }

  // The rep's background CPU time, once, when the memtable is destroyed.
  void SetBackground(uint64_t nanos) {
    background_nanos_.store(nanos, std::memory_order_relaxed);
    background_final_.store(true, std::memory_order_release);
  }

  bool BackgroundFinal() const { return background_final_.load(std::memory_order_acquire); }

  // The counts so far, summed over the shards.
  WorkloadStats Snapshot() const {
    std::array<uint64_t, kCounters> sum{};
    std::array<OpTimes, kTimedKinds> writer_times{}, reader_times{};
    WorkloadStats w;
    shards_.ForEach([&](const Shard& s) {
      std::array<uint64_t, kCounters> c{};
      for (uint32_t i = 0; i < kCounters; ++i) c[i] = s.counts[i].load(std::memory_order_relaxed);
      for (uint32_t i = 0; i < kCounters; ++i) sum[i] += c[i];
      // A shard that wrote is a writer's; one that only read, a reader's.
      const uint64_t writes = c[kInserts] + c[kConcurrentInserts] + c[kBatchEntries];
      const bool reader = writes == 0;
      const uint64_t first = s.first_ns.load(std::memory_order_relaxed);
      const uint64_t last = s.last_ns.load(std::memory_order_relaxed);
      const uint64_t span = first != 0 && last > first ? last - first : 0;
      if (!reader) {
        ++w.writer_threads;
        w.writer_span_nanos += span;
      } else if (c[kGets] + c[kSeeks] != 0) {
        ++w.reader_threads;
        w.reader_gets += c[kGets];
        w.reader_seeks += c[kSeeks];
        w.reader_steps += c[kSteps];
        w.reader_iterators += c[kIterators];
        w.reader_span_nanos += span;
      }
      std::array<OpTimes, kTimedKinds>& times = reader ? reader_times : writer_times;
      for (uint32_t k = 0; k < kTimedKinds; ++k) {
        times[k].timed += s.timed[k].load(std::memory_order_relaxed);
        times[k].nanos += s.nanos[k].load(std::memory_order_relaxed);
      }
    });
    w.insert_times = writer_times[kTimeInsert];
    w.concurrent_insert_times = writer_times[kTimeConcurrentInsert];
    w.batch_entry_times = writer_times[kTimeBatchEntry];
    w.allocate_times = writer_times[kTimeAllocate];
    w.get_times = writer_times[kTimeGet];
    w.seek_times = writer_times[kTimeSeek];
    w.step_times = writer_times[kTimeStep];
    w.iterator_times = writer_times[kTimeIterator];
    w.reader_get_times = reader_times[kTimeGet];
    w.reader_seek_times = reader_times[kTimeSeek];
    w.reader_step_times = reader_times[kTimeStep];
    w.reader_iterator_times = reader_times[kTimeIterator];
    w.background_final = background_final_.load(std::memory_order_acquire);
    w.background_nanos = background_nanos_.load(std::memory_order_relaxed);
    w.inserts = sum[kInserts];
    w.concurrent_inserts = sum[kConcurrentInserts];
    w.batches = sum[kBatches];
    w.batch_entries = sum[kBatchEntries];
    w.entry_bytes = sum[kEntryBytes];
    w.gets = sum[kGets];
    w.sampled_gets = sum[kSampledGets];
    w.sampled_hits = sum[kSampledHits];
    w.iterators = sum[kIterators];
    w.seeks = sum[kSeeks];
    w.steps = sum[kSteps];
    w.sampled_keys = sum[kSampledKeys];
    w.sampled_key_bytes = sum[kSampledKeyBytes];
    w.sampled_shared_bytes = sum[kSampledSharedBytes];
    w.bytewise = bytewise_;
    return w;
  }

 private:
  static constexpr size_t kShards = 16;
  struct Shard {
    std::array<std::atomic<uint64_t>, kCounters> counts{};
    std::array<std::atomic<uint64_t>, kTimedKinds> timed{};  // sampled calls
    std::array<std::atomic<uint64_t>, kTimedKinds> nanos{};  // and their time
    std::atomic<uint64_t> tick{0};                           // drives key sampling
    std::atomic<uint64_t> get_tick{0};                       // drives get sampling
    std::atomic<uint64_t> first_ns{0};  // the shard's first timed call began (0: none yet)
    std::atomic<uint64_t> last_ns{0};   // and its latest ended
    std::atomic<size_t> prev_len{0};
    std::array<std::atomic<char>, kSampledPrefix> prev{};
  };

  static void Bump(std::atomic<uint64_t>& c, uint64_t n) {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  // The shard's sampling tick, advanced by one (lossy as the counters are).
  struct TickRef {
    std::atomic<uint64_t>& t;
    uint64_t operator++() {
      const uint64_t v = t.load(std::memory_order_relaxed) + 1;
      t.store(v, std::memory_order_relaxed);
      return v;
    }
  };
  static TickRef Tick(Shard& s) { return TickRef{s.tick}; }

  Shard& Mine() { return shards_.Mine(); }

  concurrency::PerThread<Shard, kShards> shards_;
  const bool bytewise_;
  std::atomic<uint64_t> background_nanos_{0};
  std::atomic<bool> background_final_{false};
};

}  // namespace memrep::auto_rep
