#include "thread_runner.h"

#include <algorithm>
#include <latch>
#include <thread>

#include "progress.h"

namespace memrep::bench {

void Checker::Fail(std::string message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!failed_.load(std::memory_order_relaxed)) message_ = std::move(message);
  failed_.store(true, std::memory_order_relaxed);
}

std::string Checker::message() const {
  std::lock_guard<std::mutex> lock(mu_);
  return message_;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

ThreadRun RunThreads(uint32_t n, uint32_t sample_every, uint64_t seed, Progress* progress,
                     uint64_t expected_ops, uint32_t progress_threads,
                     const std::function<void(uint32_t index, ThreadStats& stats)>& body) {
  ThreadRun run;
  std::vector<ThreadStats*> watched;
  for (uint32_t i = 0; i < n; ++i) {
    run.threads.push_back(std::make_unique<ThreadStats>(sample_every, StreamSeed(seed, 7, i)));
    if (i < progress_threads) watched.push_back(run.threads.back().get());
  }
  if (progress != nullptr) progress->Watch(watched, expected_ops);
  std::latch ready(n);
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      ThreadStats& stats = *run.threads[i];
      ready.arrive_and_wait();
      stats.start = Clock::now();
      body(i, stats);
      stats.end = Clock::now();
    });
  }
  for (std::thread& t : threads) t.join();
  if (progress != nullptr) progress->Unwatch();
  Clock::time_point first = run.threads[0]->start, last = run.threads[0]->end;
  for (const auto& s : run.threads) {
    first = std::min(first, s->start);
    last = std::max(last, s->end);
  }
  run.seconds = Seconds(last - first);
  return run;
}

}  // namespace memrep::bench
