// WorkState: what a RunIndex's cuts and merges keep between steps, guarded
// by one lock. Whoever cuts and merges (the strand's task, or a writer's
// Help) holds `mu`, so that those never overlap, except a big merge of the
// strand's, made without it on runs set aside in `merging` (docs/runs.md,
// "The strand stays out").
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "concurrency/mutex.h"
#include "runs/sorted_run.h"
#include "runs/write_list.h"

namespace memrep::runs {

struct WorkState {
  // Taken before RunIndex's sort lock.
  concurrency::Mutex mu;
  // The inputs of the big merge the strand is making without `mu`, or empty.
  // Other merges never pick them (PickMerge), so they are still in the set
  // when it publishes.
  std::vector<const SortedRun*> merging GUARDED_BY(mu);
  // The merges that seeks pay for: rows of merging earned by the iterator
  // views taken since the last step (capped at the rows pushed, so that
  // seeks long past do not pay for merges now), and the views counted so far.
  uint64_t seek_credit GUARDED_BY(mu) = 0;
  uint64_t seeks_seen GUARDED_BY(mu) = 0;
  // Per-shard counts at the last background task, for noticing how many
  // writer threads pushed since.
  std::array<uint64_t, WriteList::kShards> last_counts GUARDED_BY(mu){};
};

}  // namespace memrep::runs
