#include "util/background_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <vector>

namespace memrep::util {
namespace {

TEST(BackgroundWorker, RunsTasksInOrderAndDrains) {
  BackgroundWorker worker;
  std::vector<int> order;  // only the worker thread writes it; Drain orders the read
  for (int i = 0; i < 100; ++i) worker.Submit([&order, i] { order.push_back(i); });
  worker.Drain();
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
}

TEST(BackgroundWorker, DelayedTaskRunsAfterItsDelay) {
  BackgroundWorker worker;
  std::atomic<bool> ran{false};
  const auto start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point when;
  worker.SubmitAfter(std::chrono::milliseconds(30), [&] {
    when = std::chrono::steady_clock::now();
    ran = true;
  });
  worker.Submit([] {});  // an immediate task does not wait for the delayed one
  worker.Drain();
  EXPECT_TRUE(ran.load());
  EXPECT_GE(when - start, std::chrono::milliseconds(30));
}

TEST(BackgroundWorker, DestructorRunsWhatIsQueuedWithoutHanging) {
  std::atomic<int> runs{0};
  for (int round = 0; round < 200; ++round) {
    BackgroundWorker worker;  // created and destroyed at once: no lost wake-up may hang it
    worker.Submit([&] { ++runs; });
    worker.SubmitAfter(std::chrono::hours(1), [&] { ++runs; });
  }
  EXPECT_EQ(runs.load(), 400);
}

}  // namespace
}  // namespace memrep::util
