// RunIndexStats: what a RunIndex's background policy did, for tests and
// benchmarks (docs/runs.md says what each rule is). relaxed throughout:
// counts, read as hints.
#pragma once

#include <atomic>
#include <cstdint>

namespace memrep::runs {

struct RunIndexStats {
  // Merges that Close stopped before they finished.
  std::atomic<uint64_t> merges_cancelled{0};
  // Cuts and merges that writer threads did themselves because readers were
  // present (Help), and the times a writer waited for another's.
  std::atomic<uint64_t> writer_helps{0};
  std::atomic<uint64_t> writer_waits{0};
  // Refreshes of the shared tail by writers while readers were present.
  std::atomic<uint64_t> tail_refreshes{0};
  // Merges made while the strand was making a big merge without the work lock.
  std::atomic<uint64_t> merges_beside_big{0};
  // Merges that seeks paid for.
  std::atomic<uint64_t> seek_merges{0};

  static void Add(std::atomic<uint64_t>& count) { count.fetch_add(1, std::memory_order_relaxed); }
};

}  // namespace memrep::runs
