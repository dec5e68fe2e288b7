// BackgroundPool and Strand: a few threads that run the background work of every memtable rep of
// the process (cutting write lists into sorted runs, merging runs), instead of one thread per
// memtable. A rep posts its work to its own Strand, so that its tasks run one at a time and in
// order while the tasks of different reps run in parallel. ParallelFor lets one task split a big
// job over whichever pool threads are idle (for the reps that need one: a vector rep's final sort;
// the sorted hash rep's merges are pairwise and do not).
//
//   Strand ──shared_ptr──► StrandQueue { mu, tasks, scheduled }
//                            ▲      ▲
//   BackgroundPool { mu_ }   │      │
//     ready_   strands with a task to run, each at most once
//     timers_  due time → (strand, task); moved to the strand's queue when due
//     jobs_    ParallelFor calls that may still have chunks to claim
//     pending_ tasks posted and not finished, counted by Drain epoch
//
// Cost: Post takes the pool mutex once or twice and the strand's mutex once; running a task takes
// each twice. ParallelFor claims a chunk with one atomic increment and ends it under the call's
// own mutex, so a chunk should be worth far more than a lock (thousands of entries, not one).
//
// Thread safety: Post, PostAfter, ParallelFor and Drain may be called from any thread, pool
// threads included, at the same time. A Strand may be destroyed at any time by any thread, even by
// one of its own tasks; its queued tasks still run. REQUIRES: the pool outlives every Strand on it
// and every call into it, and is not destroyed by one of its own threads.
//
// Invariants:
//  1. A strand is scheduled on the pool at most once at a time: `scheduled` is true exactly while
//     the strand is in ready_ or a pool thread is running one of its tasks, and only that thread
//     pops the strand's queue. So a strand's tasks never overlap and run in queue order.
//  2. A strand in ready_ has at least one task queued.
//  3. No thread holds two of these mutexes at once (the pool's, a strand's, a ParallelFor call's),
//     so there is no lock order to keep.
//  4. A task is counted in pending_ under the current epoch before it can run, and uncounted only
//     after it ran and its captures were destroyed. Drain closes the current epoch and waits
//     until no task of it or an earlier one is pending, so tasks posted later cannot satisfy it.
//  5. No lost wake-up: every push to ready_ or jobs_ signals work_ under mu_, and every idle
//     thread sleeps no later than the earliest timer (PostAfter wakes them all when it adds a new
//     earliest one). A thread that queues work itself (a due timer, a strand with more tasks)
//     comes back for work before it sleeps or exits, so nothing is stranded at shutdown.
//  6. A ParallelFor chunk is run by the one thread that claimed it. fn and cancel are touched only
//     after a successful claim, and the caller returns only after every chunk ended, so they
//     outlive every use; pool threads that help keep the call's state alive by a shared_ptr.
//
// Memory orders: all shared state is guarded by a mutex, whose lock and unlock order the writes of
// a task or chunk before whatever waits for it (the strand's next task, Drain, the ParallelFor
// caller). The only atomics are a ParallelFor call's chunk counter and its two skip flags (its
// own and the caller's cancel), all relaxed: the counter needs atomicity, not ordering, and the
// flags only say "skip" and carry no data; and the CPU time statistic, relaxed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "concurrency/mutex.h"

namespace memrep::concurrency {

class Strand;

// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), in nanoseconds.
uint64_t ThreadCpuNanos();

class BackgroundPool {
 public:
  using Task = std::function<void()>;

  // The process-wide pool: created on first use with DefaultThreads() threads, never destroyed
  // (a rep destroyed during static destruction can still post safely).
  static BackgroundPool& Shared();
  // MEMREP_BACKGROUND_THREADS from the environment when it is a number in 1..64 (anything else
  // is reported on stderr and ignored); otherwise clamp(hardware_concurrency() / 2, 1, 8). On two
  // cores that is one thread: a second gained no throughput there and cost memory (a strand's
  // tasks moving between threads spread its allocations over two malloc arenas; db_bench
  // seekrandomwhilewriting at 1M keys peaked at 235 MB with two threads, 218 MB with one).
  static size_t DefaultThreads();

  explicit BackgroundPool(size_t threads);  // REQUIRES: threads >= 1 (0 is taken as 1)
  // Runs every task already posted (delayed ones at once, in due order), then joins.
  ~BackgroundPool();
  BackgroundPool(const BackgroundPool&) = delete;
  BackgroundPool& operator=(const BackgroundPool&) = delete;

  size_t threads() const { return threads_.size(); }

  // CPU time the pool's threads spent running tasks and ParallelFor chunks since the pool
  // started, in nanoseconds (their thread CPU clocks; idle waits excluded). ParallelFor chunks a
  // caller outside the pool runs itself are that caller's, not counted. A task's (and a helped
  // chunk's) time is added before it counts as done, so after Drain returns this includes every
  // task Drain waited for. O(1), any thread.
  uint64_t CpuNanos() const { return cpu_nanos_.load(std::memory_order_relaxed); }

  // Calls fn(begin, end) over [0, n) in chunks of `grain` indexes (the last may be shorter; a
  // grain of 0 is taken as 1), on the calling thread and on whichever pool threads are idle;
  // returns once every chunk has run. Safe to call from inside a pool task, and never deadlocks:
  // the caller takes chunks itself, and a pool thread only takes chunks nobody has taken yet, so
  // it completes even when every pool thread is busy. With `cancel` non-null, chunks not yet
  // started are skipped once *cancel is true; returns false if any chunk was skipped. If fn
  // throws, the remaining chunks are skipped and the first exception is rethrown on the calling
  // thread after every started chunk ended.
  bool ParallelFor(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn,
                   const std::atomic<bool>* cancel = nullptr) EXCLUDES(mu_);

  // Blocks until every task posted (on any strand of this pool) before the call has run, the
  // delayed ones included once due. For tests and benchmarks; never on a write path.
  // REQUIRES: not called from a task of this pool (it would wait for itself).
  void Drain() EXCLUDES(mu_);

 private:
  friend class Strand;
  using Clock = std::chrono::steady_clock;
  struct StrandQueue;
  struct ParallelJob;
  struct Work;
  struct Entry {
    Task task;
    uint64_t epoch = 0;  // the Drain epoch it was posted in (Invariant 4)
  };
  struct Timer {
    std::shared_ptr<StrandQueue> strand;
    Entry entry;
  };

  void Submit(const std::shared_ptr<StrandQueue>& strand, Task task) EXCLUDES(mu_);
  void SubmitAfter(const std::shared_ptr<StrandQueue>& strand, std::chrono::milliseconds delay,
                   Task task) EXCLUDES(mu_);
  // Appends an already counted task to the strand's queue, scheduling the strand if it was idle.
  void Enqueue(const std::shared_ptr<StrandQueue>& strand, Entry entry) EXCLUDES(mu_);
  uint64_t CountTask() REQUIRES(mu_);
  void FinishTask(uint64_t epoch) REQUIRES(mu_);

  void Run() EXCLUDES(mu_);  // a pool thread
  // Waits for the next thing to do; false once stopping with nothing left.
  bool NextWork(Work* work) EXCLUDES(mu_);
  void RunStrandTask(std::shared_ptr<StrandQueue> strand) EXCLUDES(mu_);
  void RemoveJob(const std::shared_ptr<ParallelJob>& job) EXCLUDES(mu_);

  Mutex mu_;
  CondVar work_;     // ready_ or jobs_ grew, an earlier timer came, or stop_
  CondVar drained_;  // an epoch of pending_ emptied
  std::deque<std::shared_ptr<StrandQueue>> ready_ GUARDED_BY(mu_);
  std::vector<std::shared_ptr<ParallelJob>> jobs_ GUARDED_BY(mu_);
  std::multimap<Clock::time_point, Timer> timers_ GUARDED_BY(mu_);  // equal times keep post order
  std::map<uint64_t, size_t> pending_ GUARDED_BY(mu_);  // epoch → tasks not finished; no zeros
  uint64_t epoch_ GUARDED_BY(mu_) = 0;
  bool stop_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;    // set in the constructor, then only joined
  std::atomic<uint64_t> cpu_nanos_{0};  // a statistic (CpuNanos)
};

// Strand: a serial queue of tasks on a pool. Its tasks run one at a time, never overlapping, in
// the order they were posted (a delayed task joins the queue when due), on any pool thread; the
// tasks of different strands run in parallel on different pool threads.
// The Strand object may be destroyed while its tasks are queued or running, even from inside one
// of its own tasks (a task often holds the last reference to the object that owns the strand):
// the queued tasks still run. Post/PostAfter from any thread.
class Strand {
 public:
  explicit Strand(BackgroundPool* pool);  // REQUIRES: pool outlives this strand's posts
  ~Strand();
  Strand(const Strand&) = delete;
  Strand& operator=(const Strand&) = delete;

  void Post(BackgroundPool::Task task);
  // Appends `task` to this strand's queue once `delay` has passed (at once when the pool stops).
  void PostAfter(std::chrono::milliseconds delay, BackgroundPool::Task task);
  BackgroundPool* pool() const { return pool_; }
  // CPU time this strand's tasks have spent so far, in nanoseconds (their
  // thread CPU clocks, as BackgroundPool::CpuNanos counts them; ParallelFor
  // chunks that other pool threads run for a task are not in it). A task's
  // time is added when it ends. O(1), any thread.
  uint64_t CpuNanos() const;

 private:
  BackgroundPool* const pool_;
  // Shared with the pool, which keeps it while tasks are queued (Invariant 1).
  const std::shared_ptr<BackgroundPool::StrandQueue> queue_;
};

}  // namespace memrep::concurrency
