// Running a workload's threads: released together, each counting its
// operations and sampling their latency, all stopping at the first failed
// check.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "latency.h"

namespace memrep::bench {

class Progress;

// One thread's share of a run. Written by its thread only; `published` is
// read by the progress line while the thread runs, the rest after it joined.
struct ThreadStats {
  ThreadStats(uint32_t sample_every, uint64_t seed) : latency(sample_every, seed) {}

  void Count() {
    // relaxed: a progress estimate, ordered with nothing.
    if ((++ops & 1023) == 0) published.store(ops, std::memory_order_relaxed);
  }
  // `n` operations at once (a batch's records).
  void CountMany(uint64_t n) {
    ops += n;
    published.store(ops, std::memory_order_relaxed);  // relaxed: as in Count
  }

  uint64_t ops = 0;
  Clock::time_point start, end;
  LatencySampler latency;
  std::atomic<uint64_t> published{0};
};

// The first failed check of a run. Threads poll failed() and stop early.
class Checker {
 public:
  // Thread-safe; keeps the first message.
  void Fail(std::string message);
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  std::string message() const;

 private:
  std::atomic<bool> failed_{false};  // relaxed: a hint to stop; message_ is under mu_
  mutable std::mutex mu_;
  std::string message_;
};

struct ThreadRun {
  std::vector<std::unique_ptr<ThreadStats>> threads;
  // From the first thread's start to the last thread's end.
  double seconds = 0;
};

// Runs body(index, stats) on `n` threads, started together; returns when all
// have finished. `progress` (may be null) shows the ops of the first
// `progress_threads` threads against `expected_ops`.
ThreadRun RunThreads(uint32_t n, uint32_t sample_every, uint64_t seed, Progress* progress,
                     uint64_t expected_ops, uint32_t progress_threads,
                     const std::function<void(uint32_t index, ThreadStats& stats)>& body);

double Seconds(Clock::duration d);

}  // namespace memrep::bench
