#include "concurrency/background_pool.h"

#include <time.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <utility>

namespace memrep::concurrency {

// A strand's queue. The Strand, ready_, timers_ and the thread running its task each hold a
// reference, so it lives as long as a task of it is queued or running.
struct BackgroundPool::StrandQueue {
  Mutex mu;
  std::deque<Entry> tasks GUARDED_BY(mu);
  bool scheduled GUARDED_BY(mu) = false;  // Invariant 1
  std::atomic<uint64_t> cpu_nanos{0};     // a statistic (Strand::CpuNanos)
};

// One ParallelFor call. fn and cancel live on the caller's stack (Invariant 6).
struct BackgroundPool::ParallelJob {
  ParallelJob(size_t n_items, size_t grain_items, size_t chunk_count,
              const std::function<void(size_t, size_t)>* body, const std::atomic<bool>* cancelled)
      : n(n_items), grain(grain_items), chunks(chunk_count), fn(body), cancel(cancelled) {}

  // Claims and runs (or skips) chunks until none is left to claim. cpu: where
  // a pool thread adds each chunk's CPU time, before the chunk is counted as
  // ended (nullptr for the calling thread, whose time is its own).
  void RunChunks(std::atomic<uint64_t>* cpu = nullptr) EXCLUDES(mu);
  // Waits for every chunk to end, then rethrows fn's first exception or returns !skipped.
  bool Finish() EXCLUDES(mu);

  const size_t n, grain, chunks;
  const std::function<void(size_t, size_t)>* const fn;
  const std::atomic<bool>* const cancel;
  std::atomic<size_t> next_chunk{0};
  std::atomic<bool> failed{false};  // fn threw: skip the rest
  Mutex mu;
  CondVar all_ended;
  size_t ended GUARDED_BY(mu) = 0;
  bool skipped GUARDED_BY(mu) = false;
  std::exception_ptr error GUARDED_BY(mu);
};

// What a pool thread does next: one of these is set.
struct BackgroundPool::Work {
  std::vector<Timer> due;
  std::shared_ptr<ParallelJob> job;
  std::shared_ptr<StrandQueue> strand;
};

namespace {

using Clock = std::chrono::steady_clock;

// Delays are capped so that now + delay cannot overflow the clock.
constexpr std::chrono::milliseconds kMaxDelay = std::chrono::hours(24 * 365 * 100);

// Waits on `cv` with `mu` held, until `deadline` if there is one.
template <typename Pred>
void WaitOn(CondVar& cv, Mutex& mu, Pred pred,
            Clock::time_point deadline = Clock::time_point::max()) REQUIRES(mu) {
  if (deadline == Clock::time_point::max()) {
    cv.Wait(&mu, pred);
  } else {
    cv.WaitUntil(&mu, deadline, pred);
  }
}

// A task that throws is reported and forgotten: it must not kill the pool thread.
void RunGuarded(const BackgroundPool::Task& task) {
  try {
    task();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memrep: a background task threw and was skipped: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "memrep: a background task threw a non-std exception and was skipped\n");
  }
}

}  // namespace

uint64_t ThreadCpuNanos() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000 + uint64_t(ts.tv_nsec);
}

BackgroundPool& BackgroundPool::Shared() {
  static BackgroundPool* pool = new BackgroundPool(DefaultThreads());  // never destroyed
  return *pool;
}

size_t BackgroundPool::DefaultThreads() {
  if (const char* env = std::getenv("MEMREP_BACKGROUND_THREADS"); env != nullptr) {
    const char* end = env + std::strlen(env);
    size_t threads = 0;
    const auto [stop, error] = std::from_chars(env, end, threads);
    if (error == std::errc() && stop == end && threads >= 1 && threads <= 64) return threads;
    std::fprintf(
        stderr, "memrep: ignoring MEMREP_BACKGROUND_THREADS=\"%s\": want a number in 1..64\n", env);
  }
  return std::clamp<size_t>(std::thread::hardware_concurrency() / 2, 1, 8);
}

BackgroundPool::BackgroundPool(size_t threads) {
  threads_.resize(std::max<size_t>(threads, 1));
  for (std::thread& thread : threads_) thread = std::thread([this] { Run(); });
}

BackgroundPool::~BackgroundPool() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
    work_.SignalAll();
  }
  for (std::thread& thread : threads_) thread.join();
}

bool BackgroundPool::ParallelFor(size_t n, size_t grain,
                                 const std::function<void(size_t, size_t)>& fn,
                                 const std::atomic<bool>* cancel) {
  grain = std::max<size_t>(grain, 1);
  const size_t chunks = n / grain + (n % grain != 0 ? 1 : 0);
  if (chunks == 0) return true;
  auto job = std::make_shared<ParallelJob>(n, grain, chunks, &fn, cancel);
  const size_t helpers = std::min(chunks - 1, threads_.size());
  if (helpers > 0) {
    MutexLock lock(&mu_);
    jobs_.push_back(job);
    for (size_t i = 0; i < helpers; ++i) work_.Signal();  // wakes up to `helpers` idle threads
  }
  job->RunChunks();
  if (helpers > 0) RemoveJob(job);
  return job->Finish();
}

void BackgroundPool::ParallelJob::RunChunks(std::atomic<uint64_t>* cpu) {
  // Relaxed: a claim needs only atomicity; what the chunk writes reaches the caller through mu.
  for (size_t chunk; (chunk = next_chunk.fetch_add(1, std::memory_order_relaxed)) < chunks;) {
    // Relaxed: both flags only say "skip" and carry no data.
    const bool skip = failed.load(std::memory_order_relaxed) ||
                      (cancel != nullptr && cancel->load(std::memory_order_relaxed));
    std::exception_ptr thrown;
    const uint64_t start = cpu != nullptr ? ThreadCpuNanos() : 0;
    if (!skip) {
      const size_t begin = chunk * grain;
      try {
        (*fn)(begin, begin + std::min(grain, n - begin));
      } catch (...) {
        thrown = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
    }
    // relaxed: a statistic; the unlock below orders it before the caller's wait.
    if (cpu != nullptr) cpu->fetch_add(ThreadCpuNanos() - start, std::memory_order_relaxed);
    MutexLock lock(&mu);
    skipped = skipped || skip;
    if (thrown != nullptr && error == nullptr) error = std::move(thrown);
    if (++ended == chunks) all_ended.SignalAll();
  }
}

bool BackgroundPool::ParallelJob::Finish() {
  MutexLock lock(&mu);
  WaitOn(all_ended, mu, [this]() REQUIRES(mu) { return ended == chunks; });
  // Moved out, so that the caller's thread holds the exception's last reference: TSan cannot
  // see the atomic reference count of uninstrumented libstdc++ between threads.
  if (error != nullptr) std::rethrow_exception(std::exchange(error, nullptr));
  return !skipped;
}

void BackgroundPool::RemoveJob(const std::shared_ptr<ParallelJob>& job) {
  MutexLock lock(&mu_);
  std::erase(jobs_, job);  // by the caller and by every helper: whoever comes first
}

void BackgroundPool::Drain() {
  MutexLock lock(&mu_);
  const uint64_t epoch = epoch_++;  // tasks posted from now on count under a later epoch
  WaitOn(drained_, mu_,
         [&]() REQUIRES(mu_) { return pending_.empty() || pending_.begin()->first > epoch; });
}

uint64_t BackgroundPool::CountTask() {
  ++pending_[epoch_];
  return epoch_;
}

void BackgroundPool::FinishTask(uint64_t epoch) {
  const auto it = pending_.find(epoch);
  if (--it->second == 0) {
    pending_.erase(it);
    drained_.SignalAll();
  }
}

// When memory runs out on the way, Submit and SubmitAfter throw
// std::bad_alloc and leave no trace (a task counted but never queued would
// hang Drain). Once a task is in its strand's queue it stays there: if the
// strand then cannot be put on the ready list, it is left unscheduled and the
// next post to it schedules it, this task included.
void BackgroundPool::Submit(const std::shared_ptr<StrandQueue>& strand, Task task) {
  uint64_t epoch;
  {
    MutexLock lock(&mu_);
    epoch = CountTask();  // before the task can run (Invariant 4)
  }
  try {
    Enqueue(strand, Entry{std::move(task), epoch});
  } catch (...) {
    MutexLock lock(&mu_);
    FinishTask(epoch);
    throw;
  }
}

void BackgroundPool::SubmitAfter(const std::shared_ptr<StrandQueue>& strand,
                                 std::chrono::milliseconds delay, Task task) {
  const Clock::time_point due = Clock::now() + std::min(delay, kMaxDelay);
  MutexLock lock(&mu_);
  const bool earliest = timers_.empty() || due < timers_.begin()->first;
  const uint64_t epoch = CountTask();
  try {
    timers_.emplace(due, Timer{strand, Entry{std::move(task), epoch}});
  } catch (...) {
    FinishTask(epoch);
    throw;
  }
  if (earliest) work_.SignalAll();  // Invariant 5: idle threads re-aim at the new earliest timer
}

void BackgroundPool::Enqueue(const std::shared_ptr<StrandQueue>& strand, Entry entry) {
  StrandQueue& queue = *strand;
  bool schedule;
  {
    MutexLock lock(&queue.mu);
    queue.tasks.push_back(std::move(entry));
    schedule = !std::exchange(queue.scheduled, true);
  }
  if (!schedule) return;
  try {
    MutexLock lock(&mu_);
    ready_.push_back(strand);
    work_.Signal();
  } catch (const std::bad_alloc&) {
    MutexLock lock(&queue.mu);
    queue.scheduled = false;  // the next post schedules it
  }
}

void BackgroundPool::Run() {
  for (Work work; NextWork(&work); work = Work()) {
    for (Timer& timer : work.due) {
      const uint64_t epoch = timer.entry.epoch;
      try {
        Enqueue(timer.strand, std::move(timer.entry));
      } catch (const std::bad_alloc&) {
        // No memory to queue a due task: it is dropped (a RunIndex asks
        // again), and uncounted so that Drain does not wait for it.
        MutexLock lock(&mu_);
        FinishTask(epoch);
      }
    }
    if (work.job != nullptr) {
      work.job->RunChunks(&cpu_nanos_);
      RemoveJob(work.job);
    }
    if (work.strand != nullptr) RunStrandTask(std::move(work.strand));
  }
}

bool BackgroundPool::NextWork(Work* work) {
  MutexLock lock(&mu_);
  for (;;) {
    const Clock::time_point now = Clock::now();
    while (!timers_.empty() && (stop_ || timers_.begin()->first <= now)) {
      work->due.push_back(std::move(timers_.begin()->second));
      timers_.erase(timers_.begin());
    }
    if (!work->due.empty()) return true;
    if (!jobs_.empty()) {  // first: a ParallelFor caller is waiting for it
      work->job = jobs_.front();
      return true;
    }
    if (!ready_.empty()) {
      work->strand = std::move(ready_.front());
      ready_.pop_front();
      return true;
    }
    if (stop_) return false;
    const Clock::time_point deadline =
        timers_.empty() ? Clock::time_point::max() : timers_.begin()->first;
    const auto woken = [&]() REQUIRES(mu_) {
      return stop_ || !jobs_.empty() || !ready_.empty() ||
             (!timers_.empty() && timers_.begin()->first < deadline);
    };
    WaitOn(work_, mu_, woken, deadline);
  }
}

void BackgroundPool::RunStrandTask(std::shared_ptr<StrandQueue> strand) {
  StrandQueue& queue = *strand;
  Entry entry;
  {
    MutexLock lock(&queue.mu);
    entry = std::move(queue.tasks.front());  // never empty here (Invariant 2)
    queue.tasks.pop_front();
  }
  const uint64_t start = ThreadCpuNanos();
  RunGuarded(entry.task);
  entry.task = nullptr;  // captures die before the strand's next task starts and before Drain ends
  // relaxed: a statistic, counted before FinishTask (under mu_), so a Drain
  // that returns has it (CpuNanos).
  const uint64_t spent = ThreadCpuNanos() - start;
  cpu_nanos_.fetch_add(spent, std::memory_order_relaxed);
  queue.cpu_nanos.fetch_add(spent, std::memory_order_relaxed);
  bool more;
  {
    MutexLock lock(&queue.mu);
    more = !queue.tasks.empty();
    queue.scheduled = more;
  }
  MutexLock lock(&mu_);
  if (more) {
    ready_.push_back(std::move(strand));
    work_.Signal();
  }
  FinishTask(entry.epoch);
}

Strand::Strand(BackgroundPool* pool)
    : pool_(pool), queue_(std::make_shared<BackgroundPool::StrandQueue>()) {}

Strand::~Strand() = default;  // the pool keeps queue_ while a task of it is queued

void Strand::Post(BackgroundPool::Task task) { pool_->Submit(queue_, std::move(task)); }

uint64_t Strand::CpuNanos() const { return queue_->cpu_nanos.load(std::memory_order_relaxed); }

void Strand::PostAfter(std::chrono::milliseconds delay, BackgroundPool::Task task) {
  pool_->SubmitAfter(queue_, delay, std::move(task));
}

}  // namespace memrep::concurrency
