// The progress line on stderr: for a run that has lasted 2 seconds, once a
// second (on a terminal, rewritten in place) or every 10 seconds (to a file),
//
//   [memrep_bench] readrandom sorted_hash (repeat 2/3): 45%  1.21M ops/s  4 s
//
// Thread safety: every method may be called from any thread; the line is
// written by a thread of its own.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace memrep::bench {

struct ThreadStats;

class Progress {
 public:
  explicit Progress(bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // What the next watched threads are doing.
  void SetLabel(std::string label);
  // Shows the sum of these threads' published ops against `expected_ops`
  // (0: no percentage). REQUIRES: they outlive the matching Unwatch().
  void Watch(std::vector<ThreadStats*> threads, uint64_t expected_ops);
  void Unwatch();

 private:
  void Loop();
  void Print(bool final_line);  // REQUIRES: mu_ held

  const bool enabled_;
  const bool terminal_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;                                           // GUARDED_BY(mu_)
  std::string label_;                                           // GUARDED_BY(mu_)
  std::vector<ThreadStats*> threads_;                           // GUARDED_BY(mu_)
  uint64_t expected_ops_ = 0;                                   // GUARDED_BY(mu_)
  std::chrono::steady_clock::time_point started_, last_print_;  // GUARDED_BY(mu_)
  bool printed_ = false;                                        // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace memrep::bench
