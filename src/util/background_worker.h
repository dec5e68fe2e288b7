// BackgroundWorker: the one thread that runs every rep's background work
// (cutting write lists into sorted runs, merging runs), shared by all reps of
// the process instead of a thread per memtable.
//
// Thread safety: Submit may be called from any thread. Tasks run one at a
// time, in submission order, on the worker thread. A task must not block on
// another task.
//
// Lifetime: Shared() is created on first use and never destroyed, so a rep
// destroyed during static destruction can still submit safely. A rep makes
// sure its own tasks are finished or harmless before it goes away (see
// sorted_hash_rep.h); the worker itself never waits for a rep.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace memrep::util {

class BackgroundWorker {
 public:
  // The process-wide worker.
  static BackgroundWorker& Shared();

  BackgroundWorker();
  ~BackgroundWorker();  // runs what is queued, then joins
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  void Submit(std::function<void()> task);
  // Runs `task` once `delay` has passed (or earlier, when the worker stops).
  void SubmitAfter(std::chrono::milliseconds delay, std::function<void()> task);

  // Blocks until every task submitted before the call has run. For tests and
  // benchmarks; never called on a write path.
  void Drain();

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable wake_;  // tasks_ not empty, or stop_
  std::condition_variable idle_;  // a task finished
  std::deque<std::function<void()>> tasks_;  // GUARDED_BY(mu_)
  std::multimap<std::chrono::steady_clock::time_point, std::function<void()>>
      delayed_;                                 // GUARDED_BY(mu_)
  uint64_t submitted_ = 0;                    // GUARDED_BY(mu_)
  uint64_t finished_ = 0;                     // GUARDED_BY(mu_)
  bool stop_ = false;                         // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace memrep::util
