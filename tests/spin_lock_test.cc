// SpinLock: mutual exclusion (plain counters stay exact, and ThreadSanitizer
// sees the lock order every access), TryLock, and progress with more
// threads than cores (a preempted holder: waiters yield).
#include "concurrency/spin_lock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace memrep::concurrency {
namespace {

struct Guarded {
  SpinLock lock;
  // Two plain words changed together: a lost or torn update shows as a
  // wrong total or as the two apart.
  uint64_t a GUARDED_BY(lock) = 0;
  uint64_t b GUARDED_BY(lock) = 0;
};

void Hammer(Guarded* g, int threads, int per_thread) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([g, per_thread] {
      for (int i = 0; i < per_thread; ++i) {
        SpinLockHolder hold(&g->lock);
        const uint64_t a = g->a;
        g->a = a + 1;
        g->b = g->b + 2;
      }
    });
  }
  for (auto& w : workers) w.join();
}

TEST(SpinLock, KeepsPlainCountersExact) {
  Guarded g;
  Hammer(&g, 4, 20000);
  SpinLockHolder hold(&g.lock);
  EXPECT_EQ(g.a, 4u * 20000);
  EXPECT_EQ(g.b, 2 * g.a);
}

// More threads than this machine's cores: holders are preempted inside the
// section, and waiters must yield for them to finish.
TEST(SpinLock, ProgressesWithMoreThreadsThanCores) {
  Guarded g;
  const int threads = 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  Hammer(&g, threads, 2000);
  SpinLockHolder hold(&g.lock);
  EXPECT_EQ(g.a, uint64_t(threads) * 2000);
  EXPECT_EQ(g.b, 2 * g.a);
}

// Takes the lock, tries it from another thread, gives it back and tries
// again. Outside the locking analysis: it follows no lock taken inside a
// test assertion and given back in another.
struct TryLockSeen {
  bool first = false, other = true, again = false;
};
bool TryAndGiveBack(SpinLock* lock) NO_THREAD_SAFETY_ANALYSIS {
  const bool took = lock->TryLock();
  if (took) lock->Unlock();
  return took;
}
TryLockSeen TryLockWhileHeld() NO_THREAD_SAFETY_ANALYSIS {
  SpinLock lock;
  TryLockSeen seen;
  seen.first = lock.TryLock();
  std::thread t([&] { seen.other = TryAndGiveBack(&lock); });
  t.join();
  if (seen.first) lock.Unlock();
  seen.again = TryAndGiveBack(&lock);
  return seen;
}

TEST(SpinLock, TryLockFailsWhileHeld) {
  const TryLockSeen seen = TryLockWhileHeld();
  EXPECT_TRUE(seen.first) << "a free lock was refused";
  EXPECT_FALSE(seen.other) << "a second holder";
  EXPECT_TRUE(seen.again) << "not free again after Unlock";
}

}  // namespace
}  // namespace memrep::concurrency
