#include "sorted_hash/sorted_run.h"

#include <algorithm>

namespace memrep::sorted_hash {

void SortSlots(const format::KeyOrder& order, std::vector<RunSlot>* slots) {
  std::sort(slots->begin(), slots->end(), [&order](const RunSlot& a, const RunSlot& b) {
    return CompareSlots(order, a, b) < 0;
  });
}

SortedRun::SortedRun(std::vector<const char*> entries, std::vector<uint64_t> fences,
                     MemoryCounter memory)
    : entries_(std::move(entries)), fences_(std::move(fences)), memory_(std::move(memory)) {
  // relaxed: a statistic; the run itself is published by its RunSet.
  memory_->fetch_add(static_cast<int64_t>(bytes()), std::memory_order_relaxed);
}

SortedRun::SortedRun(const std::vector<RunSlot>& sorted, MemoryCounter memory)
    : memory_(std::move(memory)) {
  entries_.reserve(sorted.size());
  fences_.reserve((sorted.size() + kFenceStride - 1) / kFenceStride);
  for (size_t i = 0; i < sorted.size(); ++i) {
    entries_.push_back(sorted[i].entry);
    if (i % kFenceStride == 0) fences_.push_back(sorted[i].prefix);
  }
  memory_->fetch_add(static_cast<int64_t>(bytes()), std::memory_order_relaxed);
}

SortedRun::~SortedRun() {
  memory_->fetch_sub(static_cast<int64_t>(bytes()), std::memory_order_relaxed);
}

std::shared_ptr<const SortedRun> SortedRun::Merge(const format::KeyOrder& order,
                                                  const SortedRun& a, const SortedRun& b,
                                                  MemoryCounter memory) {
  const size_t n = a.size() + b.size();
  std::vector<const char*> out;
  std::vector<uint64_t> fences;
  out.reserve(n);
  fences.reserve((n + kFenceStride - 1) / kFenceStride);
  // Entries sit in arena order, not key order: fetch a few ahead so the
  // comparisons rarely wait for memory.
  constexpr size_t kAhead = 8;
  const char* const* pa = a.entries();
  const char* const* pb = b.entries();
  size_t i = 0, j = 0;
  auto emit = [&](const char* e) {
    if (out.size() % kFenceStride == 0) fences.push_back(EntryPrefix(order, e));
    out.push_back(e);
  };
  while (i < a.size() && j < b.size()) {
    if (i + kAhead < a.size()) __builtin_prefetch(pa[i + kAhead]);
    if (j + kAhead < b.size()) __builtin_prefetch(pb[j + kAhead]);
    if (order.CompareEntries(pb[j], pa[i]) < 0) {
      emit(pb[j++]);
    } else {
      emit(pa[i++]);
    }
  }
  for (; i < a.size(); ++i) emit(pa[i]);
  for (; j < b.size(); ++j) emit(pb[j]);
  return std::shared_ptr<const SortedRun>(
      new SortedRun(std::move(out), std::move(fences), std::move(memory)));
}

void SortedRun::Narrow(const Target& target, size_t* lo, size_t* hi) const {
  // Blocks before the first fence >= the target's prefix, except the last of
  // them, hold only smaller prefixes; blocks from the first fence > it on hold
  // only larger ones.
  const auto first_ge = std::lower_bound(fences_.begin(), fences_.end(), target.prefix);
  const auto first_gt = std::upper_bound(first_ge, fences_.end(), target.prefix);
  const size_t lo_block = static_cast<size_t>(first_ge - fences_.begin());
  *lo = lo_block == 0 ? 0 : (lo_block - 1) * kFenceStride;
  *hi = std::min(size(), static_cast<size_t>(first_gt - fences_.begin()) * kFenceStride);
}

size_t SortedRun::LowerBound(const format::KeyOrder& order, const Target& target) const {
  size_t lo, hi;
  Narrow(target, &lo, &hi);
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (order.CompareEntryToKey(entries_[mid], target.internal_key) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

size_t SortedRun::UpperBound(const format::KeyOrder& order, const Target& target) const {
  size_t lo, hi;
  Narrow(target, &lo, &hi);
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (order.CompareEntryToKey(entries_[mid], target.internal_key) <= 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace memrep::sorted_hash
