// Latency sampling: one operation in about every `every` is timed on its
// own (two steady_clock reads, ~40 ns), the rest run untimed, so the
// percentiles cost little. The gap between samples is random in
// [every/2, 3*every/2) so that a rep's periodic work (a background cut every
// 4096 inserts, say) is neither always nor never sampled.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "key_generator.h"

namespace memrep::bench {

using Clock = std::chrono::steady_clock;

class LatencySampler {
 public:
  // every == 0 turns sampling off.
  LatencySampler(uint32_t every, uint64_t seed) : every_(every), rng_(seed) { Rearm(); }

  // Whether to time the next operation.
  bool Tick() {
    if (countdown_ == 0) return false;  // sampling off
    if (--countdown_ != 0) return false;
    Rearm();
    return true;
  }
  void Record(Clock::duration d) {
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
    samples_.push_back(static_cast<uint32_t>(ns < 0 ? 0 : (ns > UINT32_MAX ? UINT32_MAX : ns)));
  }
  std::vector<uint32_t>& samples() { return samples_; }

 private:
  void Rearm() { countdown_ = every_ == 0 ? 0 : every_ / 2 + 1 + rng_.Uniform(every_); }

  uint32_t every_;
  uint64_t countdown_ = 0;
  Random64 rng_;
  std::vector<uint32_t> samples_;
};

// Runs op(), timing it when the sampler says so.
template <class Op>
inline void MaybeTimed(LatencySampler& sampler, Op&& op) {
  if (sampler.Tick()) {
    const Clock::time_point start = Clock::now();
    op();
    sampler.Record(Clock::now() - start);
  } else {
    op();
  }
}

struct LatencySummary {
  uint64_t samples = 0;
  double p50_ns = 0, p99_ns = 0, p999_ns = 0;
};

// Percentiles (nearest rank) of the samples; sorts them.
LatencySummary Summarize(std::vector<uint32_t>* samples);

}  // namespace memrep::bench
