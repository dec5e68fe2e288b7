#include "auto/clock.h"

#include <algorithm>
#include <atomic>
#include <chrono>

namespace memrep::auto_rep {
namespace {

uint64_t SteadyNow() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

uint64_t MeasureOverhead() {
  uint64_t least = UINT64_MAX;
  for (int i = 0; i < 64; ++i) {
    const uint64_t t0 = SteadyNow();
    const uint64_t t1 = SteadyNow();
    least = std::min(least, t1 - t0);
  }
  return least;
}

// relaxed: a function pointer with no data behind it; tests set it while no
// other thread times anything.
std::atomic<NowFunction> now_function{&SteadyNow};
std::atomic<bool> fake{false};

}  // namespace

uint64_t Now() { return now_function.load(std::memory_order_relaxed)(); }

uint64_t Elapsed(uint64_t t0, uint64_t t1) {
  static const uint64_t overhead = MeasureOverhead();
  const uint64_t spent = t1 >= t0 ? t1 - t0 : 0;
  const uint64_t off = fake.load(std::memory_order_relaxed) ? 0 : overhead;
  return spent > off ? spent - off : 0;
}

void SetClockForTesting(NowFunction now) {
  fake.store(now != nullptr, std::memory_order_relaxed);
  now_function.store(now != nullptr ? now : &SteadyNow, std::memory_order_relaxed);
}

}  // namespace memrep::auto_rep
