// SerialTask: an owner's background work, run as one task at a time on a
// Strand of its own: at most one run queued, runs never overlap, and Close
// cancels and waits for the run in progress.
//
//   Schedule(owner, delayed) ──(none queued?)──► strand: owner->BackgroundWork()
//                                                 true: run again after `recheck`
//
// The run index of the sorted hash, vector and columnar reps keeps one, so
// a rep's sorting and merging never races itself and a destroyed rep's
// queued work finds it closed.
//
// Thread safety: Schedule from any thread (writers, readers, the run
// itself); Close once, from the owner's destructor. Invariants:
//  1. `scheduled_` is set by the one Schedule that queues a run (acq_rel
//     exchange) and cleared (release) when that run starts, before it calls
//     BackgroundWork: a request made after the clear queues another run, so
//     no request is lost, and at most one run waits in the queue.
//  2. `running_` is set and cleared under `mu_`. Close sets `closing_` under
//     it and waits until no run is in progress; a run that starts later sees
//     `closing_` and returns at once. Once Close returns, BackgroundWork
//     never runs again.
//  3. A queued run holds a shared_ptr to its owner, which holds the
//     SerialTask: both outlive every task.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <new>

#include "concurrency/background_pool.h"
#include "concurrency/mutex.h"

namespace memrep::concurrency {

class SerialTask {
 public:
  SerialTask(BackgroundPool& pool, std::chrono::milliseconds recheck)
      : strand_(&pool), recheck_(recheck) {}
  SerialTask(const SerialTask&) = delete;
  SerialTask& operator=(const SerialTask&) = delete;

  // Queues a run of owner->BackgroundWork() (now, or after the recheck
  // period) unless one is queued. BackgroundWork returns whether to run
  // again after the recheck period; what it throws is dropped and it runs
  // again after the recheck period (the owner publishes nothing half-way).
  // Never throws: without memory to queue the run, the next request does.
  template <typename Owner>
  void Schedule(const std::shared_ptr<Owner>& owner, bool delayed) {
    // relaxed load first: the common "already queued" case stays a shared read.
    if (scheduled_.load(std::memory_order_relaxed) ||
        scheduled_.exchange(true, std::memory_order_acq_rel)) {
      return;
    }
    try {
      auto task = [this, owner] { Run(owner); };  // invariant 3
      if (delayed) {
        strand_.PostAfter(recheck_, std::move(task));
      } else {
        strand_.Post(std::move(task));
      }
    } catch (const std::bad_alloc&) {
      scheduled_.store(false, std::memory_order_release);
    }
  }

  // Refuses every later run and waits for the one in progress (invariant 2).
  void Close() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    closing_ = true;
    // relaxed: long work polls it; mu_ orders everything else.
    cancel_.store(true, std::memory_order_relaxed);
    done_.Wait(&mu_, [&]() REQUIRES(mu_) { return !running_; });
  }

  // Set by Close: long work (merges, parallel sorts) polls it and stops early.
  const std::atomic<bool>* cancel_flag() const { return &cancel_; }
  // CPU time the runs have spent so far, in nanoseconds (Strand::CpuNanos).
  uint64_t CpuNanos() const { return strand_.CpuNanos(); }
  bool cancelled() const { return cancel_.load(std::memory_order_relaxed); }

 private:
  template <typename Owner>
  void Run(const std::shared_ptr<Owner>& owner) EXCLUDES(mu_) {
    {
      MutexLock lock(&mu_);
      if (closing_) return;
      running_ = true;
    }
    // release: a request made after this point queues another run (invariant 1).
    scheduled_.store(false, std::memory_order_release);
    bool more = true;
    try {
      more = owner->BackgroundWork();
    } catch (...) {
      // Out of memory, or a custom comparator that threw: running_ must be
      // cleared whatever happened, or Close would wait forever.
    }
    {
      MutexLock lock(&mu_);
      running_ = false;
    }
    done_.SignalAll();
    if (more && !cancelled()) Schedule(owner, /*delayed=*/true);
  }

  Strand strand_;
  const std::chrono::milliseconds recheck_;
  std::atomic<bool> scheduled_{false};
  Mutex mu_;
  CondVar done_;
  bool closing_ GUARDED_BY(mu_) = false;
  bool running_ GUARDED_BY(mu_) = false;
  std::atomic<bool> cancel_{false};
};

}  // namespace memrep::concurrency
