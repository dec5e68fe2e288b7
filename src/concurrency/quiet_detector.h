// QuietDetector: tells from successive readings of a counter whether it has
// stood still for a whole period (say, a memtable's insert count: no insert
// for 10 ms means writes have paused).
//
// A single unchanged reading is not enough: two readings taken back to back
// often fall between two increments of a busy counter.
//
// Thread safety: none; one caller at a time (a RunIndex calls it from its
// background tasks, which run on one Strand and so never overlap).
#pragma once

#include <chrono>
#include <cstdint>

namespace memrep::concurrency {

class QuietDetector {
 public:
  using Clock = std::chrono::steady_clock;

  explicit QuietDetector(Clock::duration period) : period_(period) {}

  // Records `value` read at `now` (readings in time order); returns whether
  // the value has been the same at every reading since at least `period`
  // ago. The first reading starts the count: it is never quiet.
  bool Quiet(uint64_t value, Clock::time_point now) {
    if (!seen_ || value != value_) {
      seen_ = true;
      value_ = value;
      since_ = now;
      return false;
    }
    return now - since_ >= period_;
  }

 private:
  const Clock::duration period_;
  bool seen_ = false;
  uint64_t value_ = 0;
  Clock::time_point since_{};
};

}  // namespace memrep::concurrency
