#include "latency.h"

#include <algorithm>
#include <cmath>

namespace memrep::bench {

LatencySummary Summarize(std::vector<uint32_t>* samples) {
  LatencySummary out;
  out.samples = samples->size();
  if (samples->empty()) return out;
  std::sort(samples->begin(), samples->end());
  auto at = [&](double q) {
    // nearest rank: the smallest sample with at least q of them at or below it
    size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(samples->size())));
    rank = std::clamp<size_t>(rank, 1, samples->size());
    return static_cast<double>((*samples)[rank - 1]);
  };
  out.p50_ns = at(0.50);
  out.p99_ns = at(0.99);
  out.p999_ns = at(0.999);
  return out;
}

}  // namespace memrep::bench
