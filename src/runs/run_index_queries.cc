// RunIndex's queries over every row: counts, samples, and a point read
// that needs no memory.
#include <algorithm>
#include <new>
#include <random>

#include "runs/run_index.h"

namespace memrep::runs {

uint64_t RunIndex::CountBetween(std::string_view start, std::string_view end) const {
  const std::shared_ptr<const RunSet> set = runs_.Current();
  const Target from(order_, start), to(order_, end);
  uint64_t in_range = 0;
  for (const auto& run : set->runs) {
    const size_t lo = run->LowerBound(order_, from);
    const size_t hi = run->LowerBound(order_, to);
    if (hi > lo) in_range += hi - lo;
  }
  // Rows not yet in a run are few (the strand cuts them every few
  // milliseconds): count them one by one.
  WriteList::ForEachBetween(region_, write_list_.LoadHeads(), set->covered, [&](RowRef r) {
    const char* row = region_.Row(r);
    if (order_.CompareRowToKey(row, start) >= 0 && order_.CompareRowToKey(row, end) < 0) {
      ++in_range;
    }
  });
  return in_range;
}

size_t RunIndex::RunBytes() const {
  return static_cast<size_t>(std::max<int64_t>(run_memory_->load(std::memory_order_relaxed), 0));
}

Status RunIndex::RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const {
  try {
    std::vector<const char*> all;
    ForEach([&](RowRef r) { all.push_back(region_.Row(r)); });
    if (target < all.size()) {
      // A partial Fisher-Yates shuffle: the first `target` slots become a uniform sample.
      std::mt19937_64 rng(seed);
      for (size_t i = 0; i < target; ++i) {
        std::uniform_int_distribution<size_t> pick(i, all.size() - 1);
        std::swap(all[i], all[pick(rng)]);
      }
      all.resize(target);
    }
    out->insert(out->end(), all.begin(), all.end());
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not allocate a random sample of the memtable");
  }
  return Status::OK();
}

void RunIndex::GetRowsWithoutMemory(std::string_view internal_key, void* arg,
                                    bool (*callback)(void*, const char*)) const {
  // The set first: heads loaded after it are at or past what it covers.
  const std::shared_ptr<const RunSet> set = runs_.Current();
  const WriteList::Heads heads = write_list_.LoadHeads();
  // `bound` is the row last handed out (nullptr: none yet, and the search
  // starts at internal_key). Each round hands out the smallest row past it.
  const char* bound = nullptr;
  for (;;) {
    const char* best = nullptr;
    auto consider = [&](const char* row) {
      const bool past = bound == nullptr ? order_.CompareRowToKey(row, internal_key) >= 0
                                         : order_.CompareRows(row, bound) > 0;
      if (past && (best == nullptr || order_.CompareRows(row, best) < 0)) best = row;
    };
    for (const auto& run : set->runs) {
      size_t i;
      if (bound == nullptr) {
        i = run->LowerBound(order_, Target(order_, internal_key));
      } else {
        uint64_t tag;
        const std::string_view user = format::RowUserKey(bound, &tag);
        // The bound's internal key: its user key is followed by its tag in the row.
        const std::string_view key(user.data(), user.size() + 8);
        i = run->UpperBound(order_, Target(order_, key));
      }
      if (i < run->size()) consider(run->row(i));
    }
    WriteList::ForEachBetween(region_, heads, set->covered,
                              [&](RowRef r) { consider(region_.Row(r)); });
    if (best == nullptr || !callback(arg, best)) return;
    bound = best;
  }
}

}  // namespace memrep::runs
