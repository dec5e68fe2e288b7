#include "concurrency/quiet_detector.h"

#include <gtest/gtest.h>

namespace memrep::concurrency {
namespace {

using std::chrono::milliseconds;

TEST(QuietDetector, AnUnchangedReadingIsQuietOnlyAfterAWholePeriod) {
  QuietDetector d(milliseconds(10));
  const QuietDetector::Clock::time_point t0{};
  EXPECT_FALSE(d.Quiet(5, t0)) << "the first reading";
  // Read again a moment later, between two increments of a busy counter:
  // unchanged, but that says nothing about a pause yet.
  EXPECT_FALSE(d.Quiet(5, t0 + milliseconds(1)));
  EXPECT_FALSE(d.Quiet(5, t0 + milliseconds(9)));
  EXPECT_TRUE(d.Quiet(5, t0 + milliseconds(10)));
  EXPECT_TRUE(d.Quiet(5, t0 + milliseconds(50)));
}

TEST(QuietDetector, AChangeStartsThePeriodAgain) {
  QuietDetector d(milliseconds(10));
  const QuietDetector::Clock::time_point t0{};
  EXPECT_FALSE(d.Quiet(5, t0));
  EXPECT_TRUE(d.Quiet(5, t0 + milliseconds(12)));
  EXPECT_FALSE(d.Quiet(6, t0 + milliseconds(13))) << "the counter moved";
  EXPECT_FALSE(d.Quiet(6, t0 + milliseconds(22)));
  EXPECT_TRUE(d.Quiet(6, t0 + milliseconds(23)));
}

}  // namespace
}  // namespace memrep::concurrency
