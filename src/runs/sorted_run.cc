#include "runs/sorted_run.h"

#include <algorithm>

#include "concurrency/thread_slot.h"
#include "util/radix_sort.h"

namespace memrep::runs {

namespace {

// Below this many slots a comparison sort beats the counting passes.
constexpr size_t kRadixMin = 256;

}  // namespace

void SortSlots(const format::KeyOrder& order, std::vector<RunSlot>* slots) {
  auto less = [&order](const RunSlot& a, const RunSlot& b) {
    return CompareSlots(order, a, b) < 0;
  };
  const size_t n = slots->size();
  if (n < kRadixMin) {
    std::sort(slots->begin(), slots->end(), less);
    return;
  }
  // Prefixes first, by radix (a sort of background cuts that compares
  // prefixes costs a mispredicted branch per comparison), then each run of
  // equal prefixes by comparing rows (all of them under a custom order,
  // whose prefixes are all zero).
  thread_local std::vector<RunSlot> buffer;
  buffer.resize(n);
  RunSlot* v = slots->data();
  util::RadixSortBy(v, buffer.data(), n, [](const RunSlot& slot) { return slot.prefix; });
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && v[j].prefix == v[i].prefix) ++j;
    if (j - i > 1) std::sort(v + i, v + j, less);
    i = j;
  }
}

SortedRun::Parts::Parts(const RowRegion* row_region, size_t n, bool keep_prefixes,
                        Filter point_filter)
    : region(row_region), keep(keep_prefixes) {
  refs.reserve(n);
  if (point_filter == Filter::kPoint && n > 0) {
    filter.assign((n * kFilterBitsPerEntry + 63) / 64, 0);
  }
  if (keep) {
    prefixes.reserve(n);
  } else {
    fences.reserve((n + kFenceStride - 1) / kFenceStride);
  }
}

void SortedRun::Parts::Add(RowRef ref, uint64_t prefix) {
  if (!filter.empty()) {
    const uint32_t hash = FilterHash(prefix);
    filter[FilterWord(hash, filter.size())] |= FilterMask(hash);
  }
  if (keep) {
    prefixes.push_back(prefix);
  } else if (refs.size() % kFenceStride == 0) {
    fences.push_back(prefix);
  }
  refs.push_back(ref);
}

SortedRun::Parts SortedRun::FromSlots(const RowRegion* region, const std::vector<RunSlot>& sorted,
                                      Layout layout, Filter filter) {
  Parts parts(region, sorted.size(), KeepsPrefixes(layout, sorted.size()), filter);
  for (const RunSlot& slot : sorted) parts.Add(slot.ref, slot.prefix);
  return parts;
}

SortedRun::SortedRun(Parts parts, MemoryCounter memory)
    : region_(parts.region),
      refs_(std::move(parts.refs)),
      fences_(std::move(parts.fences)),
      prefixes_(std::move(parts.prefixes)),
      filter_(std::move(parts.filter)),
      memory_(std::move(memory)) {
  BuildTop();
  // relaxed: a statistic; the run itself is published by its RunSet.
  if (memory_ != nullptr)
    memory_->fetch_add(static_cast<int64_t>(bytes()), std::memory_order_relaxed);
}

SortedRun::SortedRun(const RowRegion* region, const std::vector<RunSlot>& sorted,
                     MemoryCounter memory, Layout layout, Filter filter)
    : SortedRun(FromSlots(region, sorted, layout, filter), std::move(memory)) {}

SortedRun::~SortedRun() {
  if (memory_ != nullptr)
    memory_->fetch_sub(static_cast<int64_t>(bytes()), std::memory_order_relaxed);
}

std::shared_ptr<const SortedRun> SortedRun::Merge(const format::KeyOrder& order, const SortedRun& a,
                                                  const SortedRun& b, MemoryCounter memory,
                                                  Layout layout, const std::atomic<bool>* cancel,
                                                  Filter filter) {
  if (a.size() + b.size() == 0) {
    return memory::MakeShared<SortedRun>(Parts(a.region_, 0, KeepsPrefixes(layout, 0), filter),
                                         std::move(memory));
  }
  return MergeAll(order, {&a, &b}, std::move(memory), layout, cancel, filter);
}

std::shared_ptr<const SortedRun> SortedRun::MergeAll(const format::KeyOrder& order,
                                                     const std::vector<const SortedRun*>& runs,
                                                     MemoryCounter memory, Layout layout,
                                                     const std::atomic<bool>* cancel,
                                                     Filter filter) {
  struct Head {
    const SortedRun* run;
    size_t pos;
    uint64_t prefix;
  };
  std::vector<Head> heads;
  size_t n = 0;
  for (const SortedRun* run : runs) {
    n += run->size();
    if (run->size() > 0) heads.push_back(Head{run, 0, run->PrefixAt(order, 0)});
  }
  if (heads.empty()) return nullptr;
  Parts out(heads[0].run->region_, n, KeepsPrefixes(layout, n), filter);
  // Rows sit in insertion order, not key order: fetch a few ahead so the
  // comparisons rarely wait for memory. Each head's prefix is read once, when
  // it becomes the head; most comparisons are then one integer comparison.
  // On a tie of whole rows the earlier run's row goes first.
  constexpr size_t kAhead = 8;
  // relaxed: the flag only asks to stop early; nothing is read through it.
  auto cancelled = [&] { return cancel != nullptr && cancel->load(std::memory_order_relaxed); };
  size_t next_check = kCancelCheck;
  for (size_t added = 1; heads.size() > 1; ++added) {
    size_t best = 0;
    for (size_t h = 1; h < heads.size(); ++h) {
      const Head& c = heads[h];
      const Head& b = heads[best];
      if (c.prefix < b.prefix ||
          (c.prefix == b.prefix && order.CompareRows(c.run->row(c.pos), b.run->row(b.pos)) < 0)) {
        best = h;
      }
    }
    Head& head = heads[best];
    out.Add(head.run->refs_[head.pos], head.prefix);
    if (++head.pos < head.run->size()) {
      if (head.run->prefixes_.empty() && head.pos + kAhead < head.run->size()) {
        __builtin_prefetch(head.run->row(head.pos + kAhead));
      }
      head.prefix = head.run->PrefixAt(order, head.pos);
    } else {
      heads.erase(heads.begin() + static_cast<ptrdiff_t>(best));
    }
    if (added == next_check) {
      if (cancelled()) return nullptr;
      next_check += kCancelCheck;
    }
  }
  // The rest of the last run: prefixes are needed only for fences, or when
  // kept. A filter needs every prefix: a fenced run's rest is read row by
  // row (its rows were read for the comparisons before, anyway).
  const Head& last = heads[0];
  const SortedRun& r = *last.run;
  out.Add(r.refs_[last.pos], last.prefix);
  for (size_t k = last.pos + 1; k < r.size(); ++k) {
    if (!out.filter.empty() && r.prefixes_.empty() && k + kAhead < r.size()) {
      __builtin_prefetch(r.row(k + kAhead));
    }
    out.Add(r.refs_[k], out.NeedsPrefix() ? r.PrefixAt(order, k) : 0);
  }
  return memory::MakeShared<SortedRun>(std::move(out), std::move(memory));
}

void SortedRun::BuildTop() {
  const Array<uint64_t>& keys = this->keys();
  if (keys.size() < 4 * kTopStride) return;
  top_.reserve((keys.size() + kTopStride - 1) / kTopStride);
  for (size_t j = 0; j < keys.size(); j += kTopStride) top_.push_back(keys[j]);
}

SortedRun::Range SortedRun::Locate(const Target& target) const {
  const Array<uint64_t>& keys = this->keys();
  if (top_.empty()) return Range{0, keys.size()};
  // top_[j] = keys[j * kTopStride]: the first key >= the prefix is after
  // sample j - 1 (which is smaller) and at or before sample j (if any).
  const size_t j =
      static_cast<size_t>(std::lower_bound(top_.begin(), top_.end(), target.prefix) - top_.begin());
  const Range window{j == 0 ? 0 : (j - 1) * kTopStride + 1, std::min(keys.size(), j * kTopStride)};
  // A few cache lines: asked for at once rather than missed on probe by probe.
  for (size_t k = window.lo; k < window.hi; k += concurrency::kCacheLine / sizeof(uint64_t)) {
    __builtin_prefetch(&keys[k]);
  }
  return window;
}

SortedRun::Range SortedRun::Narrow(const Target& target, Range window) const {
  const Array<uint64_t>& keys = this->keys();
  const uint64_t p = target.prefix;
  const size_t first = static_cast<size_t>(
      std::lower_bound(keys.begin() + window.lo, keys.begin() + window.hi, p) - keys.begin());
  // Keys rarely tie: step over the few equal to p, and search for the end
  // only when there are more (a custom comparator's keys are all 0).
  constexpr size_t kSteps = 4;
  const size_t stop = std::min(keys.size(), first + kSteps);
  size_t last = first;
  while (last < stop && keys[last] == p) ++last;
  if (last == stop && last < keys.size()) {
    // Many entries share p (versions of a hot key, or keys that share their
    // first 8 bytes): gallop from here, so that the search reads the lines
    // near the entries it returns rather than probing the whole array.
    // (All equal to the end: a custom comparator's keys, or p the last.)
    if (keys.back() == p) {
      last = keys.size();
    } else {
      size_t lo = last, step = kSteps;
      size_t hi = lo + step;
      while (hi < keys.size() && keys[hi] == p) {
        lo = hi + 1;
        step *= 2;
        hi = lo + step;
      }
      hi = std::min(hi, keys.size());
      last = static_cast<size_t>(std::upper_bound(keys.begin() + lo, keys.begin() + hi, p) -
                                 keys.begin());
    }
  }
  Range range{first, last};
  if (prefixes_.empty()) {
    // Fences: blocks before the first fence >= p, except the last of them,
    // hold only smaller prefixes; blocks from the first fence > p on hold
    // only larger ones.
    range =
        Range{first == 0 ? 0 : (first - 1) * kFenceStride, std::min(size(), last * kFenceStride)};
  }
  if (range.hi > range.lo) __builtin_prefetch(&refs_[range.lo]);
  return range;
}

void SortedRun::PrefetchEntries(Range range) const {
  // A narrowed range is a block or two: its entries are fetched together, so
  // the search over them waits for about one miss instead of one per probe.
  constexpr size_t kMaxPrefetch = 2 * kFenceStride;
  if (range.hi - range.lo > kMaxPrefetch) return;
  for (size_t i = range.lo; i < range.hi; ++i) __builtin_prefetch(row(i));
}

size_t SortedRun::Bound(const format::KeyOrder& order, const Target& target, Range range,
                        bool upper) const {
  size_t lo = range.lo, hi = range.hi;
  // Whether the search goes right of entry i.
  auto right_of = [&](size_t i) {
    const int c = order.CompareRowToKey(row(i), target.internal_key);
    return c < 0 || (upper && c == 0);
  };
  if (hi - lo > 2 * kFenceStride) {
    // A wide range: entries that share the target's prefix. When they are
    // the versions of the target's key (a hot key), a seek wants one near
    // their start (the newest at or below its sequence number), which a
    // binary search over all of them reaches in log2(versions) row reads.
    // So probe first where the key's versions begin at the latest (the
    // range's start, or with fences the entry at the first fence >= the
    // prefix), and when that is a newer version of the same key, gallop
    // from there: lo, lo+2, lo+5, lo+10, ... When the entries are distinct
    // keys that share their first 8 bytes, that costs one probe more than
    // the binary search below.
    const size_t q = prefixes_.empty() ? std::min(lo + kFenceStride, hi - 1) : lo;
    if (!right_of(q)) {
      hi = q;
    } else {
      lo = q + 1;
      uint64_t tag;
      const std::string_view user = format::UserKey(target.internal_key);
      if (order.CompareUserKeys(format::RowUserKey(row(q), &tag), user) == 0) {
        size_t probe = lo, step = 1;
        while (probe < hi) {
          if (!right_of(probe)) {
            hi = probe;
            break;
          }
          lo = probe + 1;
          probe = lo + step;
          step *= 2;
        }
      }
    }
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (right_of(mid)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

size_t SortedRun::Search(const format::KeyOrder& order, const Target& target, bool upper) const {
  const Range range = Narrow(target, Locate(target));
  PrefetchEntries(range);
  return Bound(order, target, range, upper);
}

}  // namespace memrep::runs
