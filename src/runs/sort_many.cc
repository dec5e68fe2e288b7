#include "runs/sort_many.h"

#include <algorithm>

#include "memory/block_cache.h"

namespace memrep::runs {

std::shared_ptr<const SortedRun> SortMany(const SortManyInputs& in, std::vector<RowRef> refs,
                                          const std::atomic<bool>* cancel) {
  // Pieces of piece_rows rows, each sorted as slots (24 bytes a row, for one
  // piece per thread at a time) into a run; then merged, up to
  // kOnePassPieces at a time in one pass, level by level, each merge's
  // inputs freed as it ends; pieces and merges run in parallel on idle pool
  // threads. Up to kPrefixedSortMax rows, the pieces and the levels keep
  // every prefix (12 bytes a row), so the merges compare prefixes and read
  // no row while prefixes differ (a row read is a cache miss: a background
  // cut of many rows, when the strand falls behind fast writers, is mostly
  // these); beyond, they keep fences (6 bytes a row), so that sorting a
  // frozen memtable's millions of unsorted rows at once takes little more
  // memory than its result. Either way this is scratch, not charged: the
  // run that results is.
  const size_t piece = std::max<size_t>(in.piece_rows, 1);
  const size_t pieces = (refs.size() + piece - 1) / piece;
  const SortedRun::Layout between = refs.size() <= kPrefixedSortMax
                                        ? SortedRun::Layout::kWithPrefixes
                                        : SortedRun::Layout::kFenced;
  const SortedRun::Layout piece_layout = pieces == 1 ? in.layout : between;
  std::vector<std::shared_ptr<const SortedRun>> runs(pieces);
  const bool sorted = in.pool.ParallelFor(
      pieces, 1,
      [&](size_t begin, size_t end) {
        std::vector<RunSlot> slots;
        for (size_t i = begin; i < end; ++i) {
          slots.clear();
          for (size_t k = i * piece; k < std::min(refs.size(), (i + 1) * piece); ++k) {
            slots.push_back(MakeSlot(in.order, in.region, refs[k]));
          }
          SortSlots(in.order, &slots);
          runs[i] = memory::MakeShared<SortedRun>(&in.region, slots, in.memory, piece_layout);
        }
      },
      cancel);
  if (!sorted) return nullptr;
  refs = std::vector<RowRef>();  // the merges may use its room
  // Levels of merges of up to kOnePassPieces runs each.
  while (runs.size() > 1) {
    const bool last = runs.size() <= kOnePassPieces;
    const size_t groups = (runs.size() + kOnePassPieces - 1) / kOnePassPieces;
    std::vector<std::shared_ptr<const SortedRun>> merged(groups);
    const bool done = in.pool.ParallelFor(
        groups, 1,
        [&](size_t begin, size_t end) {
          for (size_t g = begin; g < end; ++g) {
            const size_t from = g * kOnePassPieces;
            const size_t to = std::min(runs.size(), from + kOnePassPieces);
            if (to - from == 1) {
              merged[g] = runs[from];
              continue;
            }
            std::vector<const SortedRun*> parts;
            for (size_t i = from; i < to; ++i) parts.push_back(runs[i].get());
            merged[g] =
                SortedRun::MergeAll(in.order, parts, in.memory, last ? in.layout : between, cancel);
            for (size_t i = from; i < to; ++i) runs[i].reset();
          }
        },
        cancel);
    if (!done) return nullptr;
    for (const auto& run : merged) {
      if (run == nullptr) return nullptr;  // a merge saw the cancel
    }
    runs = std::move(merged);
  }
  return runs.empty() ? nullptr : runs[0];
}

}  // namespace memrep::runs
