#include "concurrency/background_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "concurrency/serial_task.h"

namespace memrep::concurrency {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

// Generous: only a broken pool waits this long; a loaded 2-core machine answers in milliseconds.
constexpr seconds kPatience(5);

// A one-way gate: tasks and the test thread wait for it to open, with a timeout.
class Gate {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    opened_.notify_all();
  }
  bool WaitOpen(seconds timeout = kPatience) {
    std::unique_lock<std::mutex> lock(mu_);
    return opened_.wait_for(lock, timeout, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable opened_;
  bool open_ = false;
};

// Shows that two tasks ran at the same time: each waits (up to kPatience) until two tasks have
// been inside together; once that happened, everyone passes at once.
class Rendezvous {
 public:
  bool Meet() {
    std::unique_lock<std::mutex> lock(mu_);
    if (++inside_ >= 2) met_ = true;
    changed_.notify_all();
    const bool met = changed_.wait_for(lock, kPatience, [this] { return met_; });
    --inside_;
    return met;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int inside_ = 0;
  bool met_ = false;
};

TEST(Strand, RunsTasksInPostOrderAndNeverTwoAtOnce) {
  BackgroundPool pool(4);
  constexpr int kStrands = 4;
  constexpr int kTasks = 1000;
  struct Checked {
    explicit Checked(BackgroundPool* pool) : strand(pool) {}
    Strand strand;
    std::atomic<bool> inside{false};
    std::atomic<int> overlaps{0};
    std::vector<int> order;  // only this strand's tasks touch it, one after another
  };
  std::vector<std::unique_ptr<Checked>> strands;
  for (int s = 0; s < kStrands; ++s) strands.push_back(std::make_unique<Checked>(&pool));
  // Posts interleave across strands, so each strand goes idle and is rescheduled many times,
  // its tasks hopping between pool threads.
  for (int i = 0; i < kTasks; ++i) {
    for (auto& checked : strands) {
      checked->strand.Post([c = checked.get(), i] {
        // acquire/release: a task that sees the flag clear also sees the previous task's push.
        if (c->inside.exchange(true, std::memory_order_acquire)) {
          c->overlaps.fetch_add(1, std::memory_order_relaxed);
        }
        c->order.push_back(i);
        c->inside.store(false, std::memory_order_release);
      });
    }
  }
  pool.Drain();
  for (auto& checked : strands) {
    EXPECT_EQ(checked->overlaps.load(std::memory_order_relaxed), 0);
    ASSERT_EQ(checked->order.size(), static_cast<size_t>(kTasks));
    for (int i = 0; i < kTasks; ++i) ASSERT_EQ(checked->order[i], i) << "at position " << i;
  }
}

TEST(Strand, DifferentStrandsRunInParallel) {
  BackgroundPool pool(4);
  Rendezvous rendezvous;
  std::atomic<int> met{0};
  std::vector<std::unique_ptr<Strand>> strands;
  for (int s = 0; s < 4; ++s) {
    strands.push_back(std::make_unique<Strand>(&pool));
    strands.back()->Post([&] {
      if (rendezvous.Meet()) met.fetch_add(1, std::memory_order_relaxed);
    });
  }
  pool.Drain();
  EXPECT_GE(met.load(std::memory_order_relaxed), 2) << "no two strands' tasks overlapped";
}

TEST(Strand, DelayedTaskRunsAfterItsDelay) {
  Gate ran;
  Clock::time_point ran_at;  // written before `ran` opens
  BackgroundPool pool(2);    // after what its tasks touch, which must outlive it
  Strand strand(&pool);
  strand.PostAfter(std::chrono::hours(1), [] {});
  // Let the pool's threads fall asleep until that hour is up, so that the next PostAfter must
  // wake them to an earlier deadline. (If they are not asleep yet, the test only gets weaker.)
  std::this_thread::sleep_for(milliseconds(20));
  const Clock::time_point start = Clock::now();
  strand.PostAfter(milliseconds(30), [&] {
    ran_at = Clock::now();
    ran.Open();
  });
  ASSERT_TRUE(ran.WaitOpen()) << "the delayed task's due time woke no thread";
  EXPECT_GE(ran_at - start, milliseconds(30));
}

TEST(Strand, ImmediateTaskDoesNotWaitForADelayedOne) {
  std::atomic<bool> delayed_ran{false};
  Gate immediate_ran;
  {
    BackgroundPool pool(2);
    Strand strand(&pool);
    strand.PostAfter(std::chrono::hours(1),
                     [&] { delayed_ran.store(true, std::memory_order_relaxed); });
    strand.Post([&] { immediate_ran.Open(); });  // same strand: the delayed task is not in its way
    EXPECT_TRUE(immediate_ran.WaitOpen());
    EXPECT_FALSE(delayed_ran.load(std::memory_order_relaxed));
  }
  EXPECT_TRUE(delayed_ran.load(std::memory_order_relaxed)) << "the destructor runs it at once";
}

TEST(BackgroundPool, DrainWaitsForDelayedTasksPostedBeforeIt) {
  BackgroundPool pool(2);
  Strand strand(&pool);
  bool ran = false;  // written by the task; Drain orders the read
  strand.PostAfter(milliseconds(50), [&] { ran = true; });
  pool.Drain();
  EXPECT_TRUE(ran);
}

// CpuNanos counts the CPU its threads spend on tasks: a task that burns
// 20 ms of its thread's CPU adds at least that, and a caller's own CPU
// (spent outside the pool) adds nothing.
TEST(BackgroundPool, CpuNanosCountsTheCpuOfTasks) {
  BackgroundPool pool(1);
  Strand strand(&pool);
  EXPECT_EQ(pool.CpuNanos(), 0u);
  constexpr uint64_t kBurn = 20'000'000;
  const auto burn = [] {
    const uint64_t start = ThreadCpuNanos();
    while (ThreadCpuNanos() - start < kBurn) {
    }
  };
  burn();  // the caller's: not the pool's
  EXPECT_LT(pool.CpuNanos(), kBurn);
  strand.Post(burn);
  pool.Drain();
  const uint64_t after_one = pool.CpuNanos();
  EXPECT_GE(after_one, kBurn);
  EXPECT_LT(after_one, 2 * kBurn) << "the caller's CPU was counted too";
  strand.Post(burn);
  pool.Drain();
  EXPECT_GE(pool.CpuNanos(), after_one + kBurn);
}

// An owner of a SerialTask that records its runs: how many, and whether two
// ever overlapped.
struct SerialOwner : std::enable_shared_from_this<SerialOwner> {
  explicit SerialOwner(BackgroundPool& pool) : task(pool, milliseconds(1)) {}
  bool BackgroundWork() {
    if (in_run.exchange(true)) overlaps.fetch_add(1);
    std::this_thread::yield();  // widen the window an overlap would need
    runs.fetch_add(1);
    in_run.store(false);
    return again.load();
  }
  std::atomic<bool> in_run{false};
  std::atomic<int> overlaps{0};
  std::atomic<int> runs{0};
  std::atomic<bool> again{false};
  SerialTask task;
};

// Requests from many threads at once: runs never overlap, at most one is
// queued (fewer runs than requests), and a request made after the last run
// started still gets a run of its own (none is lost).
TEST(SerialTask, RunsNeverOverlapAndNoRequestIsLost) {
  BackgroundPool pool(2);
  auto owner = std::make_shared<SerialOwner>(pool);
  constexpr int kThreads = 4, kRequests = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRequests; ++i) owner->task.Schedule(owner, /*delayed=*/false);
    });
  }
  for (auto& th : threads) th.join();
  pool.Drain();
  EXPECT_EQ(owner->overlaps.load(), 0);
  const int runs = owner->runs.load();
  EXPECT_GE(runs, 1);
  EXPECT_LT(runs, kThreads * kRequests) << "every request queued a run of its own";
  owner->task.Schedule(owner, false);
  pool.Drain();
  EXPECT_EQ(owner->runs.load(), runs + 1);
  owner->task.Close();
}

// Work that asks to run again keeps running after the recheck period until
// Close; after Close returns, it never runs again.
TEST(SerialTask, CloseStopsWorkThatRunsAgain) {
  BackgroundPool pool(1);
  auto owner = std::make_shared<SerialOwner>(pool);
  owner->again = true;
  owner->task.Schedule(owner, false);
  const Clock::time_point deadline = Clock::now() + seconds(10);
  while (owner->runs.load() < 3 && Clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(1));
  EXPECT_GE(owner->runs.load(), 3) << "the work did not run again";
  EXPECT_FALSE(owner->task.cancelled());
  owner->task.Close();
  EXPECT_TRUE(owner->task.cancelled());
  const int runs = owner->runs.load();
  owner->task.Schedule(owner, false);
  pool.Drain();
  std::this_thread::sleep_for(milliseconds(5));
  pool.Drain();
  EXPECT_EQ(owner->runs.load(), runs) << "a run after Close";
  EXPECT_EQ(owner->overlaps.load(), 0);
}

TEST(BackgroundPool, DrainIsNotSatisfiedByTasksPostedDuringIt) {
  // A Drain that only counted finished tasks would return once the busy poster's quick tasks
  // made up the count, before the delayed task posted ahead of it ran.
  std::atomic<bool> ran{false};
  std::atomic<bool> stop{false};
  BackgroundPool pool(2);
  Strand delayed(&pool);
  Strand busy(&pool);
  delayed.PostAfter(milliseconds(100), [&] { ran.store(true, std::memory_order_relaxed); });
  std::thread poster([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      busy.Post([] {});
      std::this_thread::sleep_for(milliseconds(1));
    }
  });
  pool.Drain();
  EXPECT_TRUE(ran.load(std::memory_order_relaxed));
  stop.store(true, std::memory_order_relaxed);
  poster.join();
}

TEST(BackgroundPool, ParallelForCoversEveryIndexExactlyOnce) {
  BackgroundPool pool(3);
  const std::pair<size_t, size_t> cases[] = {{0, 4},  {1, 1},   {3, 8},    {8, 8},
                                             {10, 3}, {100, 7}, {1000, 1}, {4096, 64}};
  for (const auto& test_case : cases) {
    const size_t n = test_case.first;  // not a structured binding: clang 14 cannot capture one
    const size_t grain = test_case.second;
    SCOPED_TRACE("n=" + std::to_string(n) + " grain=" + std::to_string(grain));
    std::vector<std::atomic<int>> hits(n);
    std::atomic<int> bad_chunks{0};
    EXPECT_TRUE(pool.ParallelFor(n, grain, [&](size_t begin, size_t end) {
      if (begin % grain != 0 || end <= begin || end - begin != std::min(grain, n - begin)) {
        bad_chunks.fetch_add(1, std::memory_order_relaxed);
      }
      for (size_t i = begin; i < end && i < n; ++i) hits[i].fetch_add(1, std::memory_order_relaxed);
    }));
    EXPECT_EQ(bad_chunks.load(std::memory_order_relaxed), 0);
    size_t wrong = 0;
    for (const auto& hit : hits) wrong += hit.load(std::memory_order_relaxed) != 1 ? 1 : 0;
    EXPECT_EQ(wrong, 0u);
  }
}

TEST(BackgroundPool, ParallelForRunsChunksOnIdlePoolThreads) {
  BackgroundPool pool(2);
  Rendezvous rendezvous;
  std::atomic<int> met{0};
  EXPECT_TRUE(pool.ParallelFor(2, 1, [&](size_t, size_t) {
    if (rendezvous.Meet()) met.fetch_add(1, std::memory_order_relaxed);
  }));
  EXPECT_EQ(met.load(std::memory_order_relaxed), 2) << "the caller ran both chunks alone";
}

TEST(BackgroundPool, ParallelForInsideATaskOfAOneThreadPoolCompletes) {
  auto pool = std::make_unique<BackgroundPool>(1);
  Gate done;
  std::atomic<size_t> covered{0};
  bool result = false;  // written by the task before it opens `done`
  {
    Strand strand(pool.get());
    strand.Post([&] {
      // The pool's only thread runs this task, so the caller must take every chunk itself,
      // and so must the nested calls inside the chunks.
      result = pool->ParallelFor(4, 1, [&](size_t, size_t) {
        pool->ParallelFor(10, 3, [&](size_t begin, size_t end) {
          covered.fetch_add(end - begin, std::memory_order_relaxed);
        });
      });
      done.Open();
    });
  }
  if (!done.WaitOpen()) {
    (void)pool.release();  // deadlocked: leak it rather than hang in its destructor
    FAIL() << "ParallelFor deadlocked inside a pool task";
  }
  EXPECT_TRUE(result);
  EXPECT_EQ(covered.load(std::memory_order_relaxed), 40u);
}

TEST(BackgroundPool, ParallelForCancelSkipsChunksNotYetStarted) {
  BackgroundPool pool(2);
  std::atomic<bool> cancel{true};
  std::atomic<int> calls{0};
  const auto count = [&](size_t, size_t) { calls.fetch_add(1, std::memory_order_relaxed); };
  EXPECT_FALSE(pool.ParallelFor(100, 1, count, &cancel));
  EXPECT_EQ(calls.load(std::memory_order_relaxed), 0);

  cancel.store(false, std::memory_order_relaxed);
  EXPECT_FALSE(pool.ParallelFor(
      100, 1,
      [&](size_t, size_t) {
        calls.fetch_add(1, std::memory_order_relaxed);
        cancel.store(true, std::memory_order_relaxed);
      },
      &cancel));
  // The caller and two pool threads each start at most one chunk before they see the cancel.
  EXPECT_GE(calls.load(std::memory_order_relaxed), 1);
  EXPECT_LE(calls.load(std::memory_order_relaxed), 3);

  cancel.store(false, std::memory_order_relaxed);
  calls.store(0, std::memory_order_relaxed);
  EXPECT_TRUE(pool.ParallelFor(100, 1, count, &cancel));
  EXPECT_EQ(calls.load(std::memory_order_relaxed), 100);
}

// Waits (up to kPatience) until `flag` is set; the test goes on either way.
void AwaitFlag(const std::atomic<bool>& flag) {
  const Clock::time_point deadline = Clock::now() + kPatience;
  while (!flag.load(std::memory_order_relaxed) && Clock::now() < deadline) {
    std::this_thread::yield();
  }
}

TEST(BackgroundPool, ParallelForRethrowsAPoolThreadsExceptionInTheCaller) {
  BackgroundPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> pool_chunk_started{false};
  try {
    pool.ParallelFor(100, 1, [&](size_t, size_t) {
      if (std::this_thread::get_id() != caller) {
        pool_chunk_started.store(true, std::memory_order_relaxed);
        throw std::runtime_error("thrown on a pool thread");
      }
      AwaitFlag(pool_chunk_started);  // the caller leaves room for a pool thread to take a chunk
    });
    ADD_FAILURE() << "the exception was not rethrown";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "thrown on a pool thread");
  }
  // (How many chunks ran is not checked here: the caller may run several before the pool thread
  // has recorded the failure. The next test checks the skipping.)
}

TEST(BackgroundPool, ParallelForSkipsTheRestAndRethrowsOnlyAfterStartedChunksEnd) {
  BackgroundPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> pool_chunk_started{false};
  std::atomic<int> pool_chunks_running{0};
  std::atomic<int> calls{0};
  try {
    pool.ParallelFor(100, 1, [&](size_t, size_t) {
      calls.fetch_add(1, std::memory_order_relaxed);
      if (std::this_thread::get_id() != caller) {
        pool_chunks_running.fetch_add(1, std::memory_order_relaxed);
        pool_chunk_started.store(true, std::memory_order_relaxed);
        std::this_thread::sleep_for(milliseconds(10));
        pool_chunks_running.fetch_sub(1, std::memory_order_relaxed);
        return;
      }
      // Throw while a pool thread's chunk is running: a caller that rethrew at once would
      // return with that chunk still inside fn.
      AwaitFlag(pool_chunk_started);
      throw std::runtime_error("thrown on the caller");
    });
    ADD_FAILURE() << "the exception was not rethrown";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "thrown on the caller");
  }
  EXPECT_EQ(pool_chunks_running.load(std::memory_order_relaxed), 0);
  // The caller skips every chunk it claims after its throw; each pool thread may finish the
  // 10 ms chunk it was in.
  EXPECT_LT(calls.load(std::memory_order_relaxed), 100) << "the remaining chunks were not skipped";
}

TEST(Strand, DestroyedFromInsideItsOwnTaskStillRunsWhatIsQueued) {
  // The owner of a strand, kept alive by its own tasks, as a rep is.
  struct Owner {
    Owner(BackgroundPool* pool, std::thread::id* destroyed_on)
        : strand(pool), destroyed_on(destroyed_on) {}
    ~Owner() { *destroyed_on = std::this_thread::get_id(); }
    Strand strand;
    std::thread::id* destroyed_on;
  };
  std::thread::id destroyed_on;  // written by the owner's destructor; Drain orders the read
  Gate dropped;
  std::atomic<int> runs{0};
  BackgroundPool pool(2);
  auto owner = std::make_shared<Owner>(&pool, &destroyed_on);
  owner->strand.Post([&] { dropped.WaitOpen(); });  // holds the strand until the test lets go
  owner->strand.Post([self = owner]() mutable {
    self.reset();  // the last reference: the Strand is destroyed inside its own task
  });
  for (int i = 0; i < 10; ++i) {
    owner->strand.Post([&] { runs.fetch_add(1, std::memory_order_relaxed); });
  }
  owner.reset();
  dropped.Open();
  pool.Drain();
  EXPECT_EQ(runs.load(std::memory_order_relaxed), 10);
  EXPECT_NE(destroyed_on, std::thread::id()) << "the owner was not destroyed";
  EXPECT_NE(destroyed_on, std::this_thread::get_id()) << "destroyed on the test thread";
}

TEST(Strand, DestroyedWithTasksQueuedStillRunsThem) {
  Gate release;
  std::atomic<int> runs{0};
  BackgroundPool pool(1);
  Strand blocker(&pool);
  blocker.Post([&] { release.WaitOpen(); });  // keeps the only thread busy
  {
    Strand strand(&pool);
    for (int i = 0; i < 100; ++i)
      strand.Post([&] { runs.fetch_add(1, std::memory_order_relaxed); });
    strand.PostAfter(milliseconds(1), [&] { runs.fetch_add(1, std::memory_order_relaxed); });
  }
  release.Open();
  pool.Drain();
  EXPECT_EQ(runs.load(std::memory_order_relaxed), 101);
}

TEST(Strand, ThrowingTaskDoesNotStopLaterTasks) {
  BackgroundPool pool(1);  // one thread: it must survive the throws
  Strand strand(&pool);
  bool ran = false;  // written by the task; Drain orders the read
  testing::internal::CaptureStderr();
  strand.Post([] { throw std::runtime_error("boom"); });
  strand.Post([] { throw 42; });
  strand.Post([&] { ran = true; });
  pool.Drain();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(ran);
  EXPECT_NE(err.find("boom"), std::string::npos) << err;
  EXPECT_NE(err.find("non-std exception"), std::string::npos) << err;
  std::atomic<int> calls{0};
  EXPECT_TRUE(pool.ParallelFor(
      8, 1, [&](size_t, size_t) { calls.fetch_add(1, std::memory_order_relaxed); }));
  EXPECT_EQ(calls.load(std::memory_order_relaxed), 8);
}

TEST(BackgroundPool, DestructorRunsWhatIsQueuedWithoutHanging) {
  std::atomic<int> runs{0};
  for (int round = 0; round < 200; ++round) {
    BackgroundPool pool(2);  // created and destroyed at once: a lost wake-up would hang it
    Strand strand(&pool);
    strand.Post([&] { runs.fetch_add(1, std::memory_order_relaxed); });
    strand.PostAfter(std::chrono::hours(1), [&] { runs.fetch_add(1, std::memory_order_relaxed); });
  }
  EXPECT_EQ(runs.load(std::memory_order_relaxed), 400);
}

TEST(BackgroundPool, DestructorRunsDelayedTasksAtOnceInDueOrder) {
  std::vector<int> order;  // one strand writes it; the destructor's join orders the read
  const Clock::time_point start = Clock::now();
  {
    BackgroundPool pool(2);
    Strand strand(&pool);
    strand.PostAfter(std::chrono::hours(3), [&] { order.push_back(3); });
    strand.PostAfter(std::chrono::hours(1), [&] { order.push_back(1); });
    strand.PostAfter(std::chrono::hours(2), [&] { order.push_back(2); });
  }
  EXPECT_LT(Clock::now() - start, kPatience);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(BackgroundPool, DefaultThreadsReadsTheEnvironment) {
  const char* saved = std::getenv("MEMREP_BACKGROUND_THREADS");
  const std::string restore = saved != nullptr ? saved : "";
  const size_t fallback = std::clamp<size_t>(std::thread::hardware_concurrency() / 2, 1, 8);
  setenv("MEMREP_BACKGROUND_THREADS", "3", 1);
  EXPECT_EQ(BackgroundPool::DefaultThreads(), 3u);
  setenv("MEMREP_BACKGROUND_THREADS", "64", 1);
  EXPECT_EQ(BackgroundPool::DefaultThreads(), 64u);
  testing::internal::CaptureStderr();
  for (const char* bad : {"0", "65", "", "abc", "3x", "-2"}) {
    setenv("MEMREP_BACKGROUND_THREADS", bad, 1);
    EXPECT_EQ(BackgroundPool::DefaultThreads(), fallback) << '"' << bad << '"';
  }
  EXPECT_NE(testing::internal::GetCapturedStderr().find("1..64"), std::string::npos);
  unsetenv("MEMREP_BACKGROUND_THREADS");
  EXPECT_EQ(BackgroundPool::DefaultThreads(), fallback);
  if (saved != nullptr) setenv("MEMREP_BACKGROUND_THREADS", restore.c_str(), 1);
}

TEST(BackgroundPool, SharedIsOnePoolThatRunsTasks) {
  BackgroundPool& shared = BackgroundPool::Shared();
  EXPECT_EQ(&shared, &BackgroundPool::Shared());
  EXPECT_GE(shared.threads(), 1u);
  Strand strand(&shared);
  bool ran = false;  // written by the task; Drain orders the read
  strand.Post([&] { ran = true; });
  shared.Drain();
  EXPECT_TRUE(ran);
}

}  // namespace
}  // namespace memrep::concurrency
