#include "sorted_hash/sorted_run.h"

#include <algorithm>

namespace memrep::sorted_hash {

size_t LowerBound(const format::KeyOrder& order, const RunSlot* slots, size_t n,
                  const Target& target) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (CompareSlotToTarget(order, slots[mid], target) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

size_t UpperBound(const format::KeyOrder& order, const RunSlot* slots, size_t n,
                  const Target& target) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (CompareSlotToTarget(order, slots[mid], target) <= 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

void SortSlots(const format::KeyOrder& order, std::vector<RunSlot>* slots) {
  std::sort(slots->begin(), slots->end(), [&order](const RunSlot& a, const RunSlot& b) {
    return CompareSlots(order, a, b) < 0;
  });
}

SortedRun::SortedRun(std::vector<RunSlot> sorted, MemoryCounter memory)
    : slots_(std::move(sorted)), memory_(std::move(memory)) {
  // relaxed: a statistic; the run itself is published by its RunSet.
  memory_->fetch_add(static_cast<int64_t>(bytes()), std::memory_order_relaxed);
}

SortedRun::~SortedRun() {
  memory_->fetch_sub(static_cast<int64_t>(bytes()), std::memory_order_relaxed);
}

std::shared_ptr<const SortedRun> SortedRun::Merge(const format::KeyOrder& order,
                                                  const SortedRun& a, const SortedRun& b,
                                                  MemoryCounter memory) {
  std::vector<RunSlot> out;
  out.reserve(a.size() + b.size());
  const RunSlot *pa = a.slots(), *ea = pa + a.size();
  const RunSlot *pb = b.slots(), *eb = pb + b.size();
  while (pa != ea && pb != eb) {
    if (CompareSlots(order, *pb, *pa) < 0) {
      out.push_back(*pb++);
    } else {
      out.push_back(*pa++);
    }
  }
  out.insert(out.end(), pa, ea);
  out.insert(out.end(), pb, eb);
  return std::make_shared<const SortedRun>(std::move(out), std::move(memory));
}

}  // namespace memrep::sorted_hash
