// SortMany: many rows of a RowRegion as one sorted run, sorted in bounded
// pieces on the pool's idle threads and merged level by level (the design:
// docs/runs.md, "Sorting many rows"). A RunIndex's cuts of a big tail use it.
//
// Thread safety: reads rows that are complete and never change; the pieces
// and merges run on pool threads (BackgroundPool::ParallelFor), each writing
// only its own output.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "concurrency/background_pool.h"
#include "format/key_order.h"
#include "runs/sorted_run.h"

namespace memrep::runs {

struct SortManyInputs {
  const format::KeyOrder& order;
  const RowRegion& region;
  concurrency::BackgroundPool& pool;
  const MemoryCounter& memory;  // charges the result (and the scratch, briefly)
  size_t piece_rows;            // rows sorted as slots at a time (>= 1)
  SortedRun::Layout layout;     // of the run made
};

// Pieces merged in one pass at most (each output row compares the heads).
inline constexpr size_t kOnePassPieces = 16;
// Rows sorted with every prefix kept between the steps; more keep fences.
inline constexpr size_t kPrefixedSortMax = size_t{1} << 20;

// The rows `refs` names as one run in `in.layout`; nullptr if *cancel became
// true (cancel may be nullptr). May throw std::bad_alloc.
std::shared_ptr<const SortedRun> SortMany(const SortManyInputs& in, std::vector<RowRef> refs,
                                          const std::atomic<bool>* cancel);

}  // namespace memrep::runs
