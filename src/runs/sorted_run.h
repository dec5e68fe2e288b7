// SortedRun: an immutable, sorted array of row references, with one "fence"
// every kFenceStride entries: the 8-byte order-preserving prefix of the key at
// that position.
//
//   refs:    [ r0 ][ r1 ][ r2 ][ r3 ][ r4 ] ...     4 bytes per entry
//   fences:  [ prefix(e0)            ][ prefix(e4) ] 2 bytes per entry
//
// A reference names a node of the rep's RowRegion: row i =
// region.Row(refs[i]).
//
// A search first binary-searches the fences (a compact array that mostly
// stays in cache) to the one or two blocks that can hold the target, then
// compares full keys in those blocks only: their rows are fetched together
// (one wait for memory), then two or three are compared, instead of one miss
// per probe. (A stride of 8 saves a byte per entry, but fetches twice the
// rows per run searched: docs/results/2026-11-26-sorted-hash-v2.md.) Keys
// that share their first 8 bytes widen the range, down to a plain binary
// search (and so does a custom comparator, whose fences are 0).
//
// A run may also keep a point filter over its keys' prefixes (about one byte
// per entry): a point read asks it first and skips the run when its key's
// prefix cannot be there, with one cache miss instead of a search's three or
// four (a Get beside writers searches every run the memtable has). Built
// from the prefixes a merge reads anyway, it costs a merge no row read; keys
// that share their first 8 bytes share a prefix, and a run that holds one
// of them is searched for all.
//
// A small run can instead keep every entry's prefix (12 bytes per entry):
// the unsorted tail that readers sort and share is kept that way, so that
// merging new entries into it and searching it read no entry at all while
// prefixes differ.
//
// Thread safety: immutable after construction; shared by reference count.
// Memory: each run adds its bytes to a counter shared with its rep when built
// and subtracts them when destroyed; a run built with no counter (nullptr: a
// reader's private level, scratch that lives for one view) is counted nowhere,
// so that building it writes no cache line other threads write.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "format/key_order.h"
#include "memory/block_cache.h"
#include "memory/row_region.h"
#include "util/fast_range.h"

namespace memrep::runs {

using memory::RowRef;
using memory::RowRegion;

// A row with its prefix and its node's RowRegion reference, for sorting a
// batch of rows. `row` could be derived from `ref`, but keeping it saves a
// chunk-table load on every comparison of tied prefixes while sorting.
struct RunSlot {
  uint64_t prefix;
  const char* row;
  RowRef ref;
};

inline uint64_t RowPrefix(const format::KeyOrder& order, const char* row) {
  uint64_t tag;
  return order.Prefix(format::RowUserKey(row, &tag));
}

inline RunSlot MakeSlot(const format::KeyOrder& order, const RowRegion& region, RowRef ref) {
  const char* row = region.Row(ref);
  return RunSlot{RowPrefix(order, row), row, ref};
}

inline int CompareSlots(const format::KeyOrder& order, const RunSlot& a, const RunSlot& b) {
  if (a.prefix != b.prefix) return a.prefix < b.prefix ? -1 : 1;
  return order.CompareRows(a.row, b.row);
}

// Sorts distinct rows' slots in place.
void SortSlots(const format::KeyOrder& order, std::vector<RunSlot>* slots);

// A seek target, with its prefix computed once.
struct Target {
  Target(const format::KeyOrder& order, std::string_view key)
      : internal_key(key), prefix(order.Prefix(format::UserKey(key))) {}
  std::string_view internal_key;
  uint64_t prefix;
};

using MemoryCounter = std::shared_ptr<std::atomic<int64_t>>;

class SortedRun {
  struct Parts;

 public:
  static constexpr size_t kFenceStride = 4;
  // An upper bound of a fenced run's bytes per entry (reference plus fence share).
  static constexpr size_t kMaxBytesPerEntry = sizeof(RowRef) + sizeof(uint64_t) / kFenceStride;
  // Every kTopStride-th fence or prefix is copied into a small top index, so
  // a search touches a few cache lines of the big array instead of ~log2 of
  // them; it costs 1/32 byte per entry of a fenced run and 1/8 of one that
  // keeps its prefixes (MemoryUsage charges it).
  static constexpr size_t kTopStride = 64;
  // Bytes per entry of a run that keeps every prefix.
  static constexpr size_t kBytesPerEntryWithPrefixes = sizeof(RowRef) + sizeof(uint64_t);

  // Runs up to this size keep every prefix: a search in them reads no entry
  // unless prefixes tie, and they are few and small, so this costs at most a
  // few MiB per rep (charged by the rep's MemoryUsage).
  static constexpr size_t kPrefixedRunMax = size_t{1} << 16;

  // kAuto: kWithPrefixes up to kPrefixedRunMax entries, else kFenced.
  enum class Layout { kFenced, kWithPrefixes, kAuto };

  // The point filter: a Bloom filter over the entries' prefixes, blocked by
  // 64-bit word (a prefix sets and tests three bits of one word: one cache
  // miss), kFilterBitsPerEntry bits an entry, so about 1 byte per entry and
  // a few percent of the runs without the prefix still searched. kPoint:
  // built (useless under a custom comparator, whose prefixes are all 0);
  // kNone: MayContain is always true.
  enum class Filter { kNone, kPoint };
  static constexpr size_t kFilterBitsPerEntry = 8;

  // REQUIRES: `sorted` is sorted and holds distinct nodes of `region`,
  // which outlives the run.
  SortedRun(const RowRegion* region, const std::vector<RunSlot>& sorted, MemoryCounter memory,
            Layout layout = Layout::kAuto, Filter filter = Filter::kNone);
  // The run of a merge's parts. Public for memory::MakeShared only: Parts is
  // private, so only SortedRun's own members can make them.
  SortedRun(Parts parts, MemoryCounter memory);
  ~SortedRun();
  SortedRun(const SortedRun&) = delete;
  SortedRun& operator=(const SortedRun&) = delete;

  // A run holding the entries of both (MergeAll's two-run case, and an empty
  // run when both are empty), which must not share an entry and must be of
  // the same region. nullptr if *cancel became true on the way (checked every
  // kCancelCheck entries, so a cancelled merge stops within about a
  // millisecond).
  static std::shared_ptr<const SortedRun> Merge(const format::KeyOrder& order, const SortedRun& a,
                                                const SortedRun& b, MemoryCounter memory,
                                                Layout layout = Layout::kAuto,
                                                const std::atomic<bool>* cancel = nullptr,
                                                Filter filter = Filter::kNone);
  static constexpr size_t kCancelCheck = size_t{1} << 16;
  // One run holding the entries of all `runs` (few: their heads are compared
  // one by one for each entry), in one pass; where rows tie, the earlier
  // run's goes first. nullptr when every run is empty. Same rules as Merge.
  static std::shared_ptr<const SortedRun> MergeAll(const format::KeyOrder& order,
                                                   const std::vector<const SortedRun*>& runs,
                                                   MemoryCounter memory, Layout layout,
                                                   const std::atomic<bool>* cancel = nullptr,
                                                   Filter filter = Filter::kNone);

  size_t size() const { return refs_.size(); }
  bool filtered() const { return !filter_.empty(); }
  // What the point filter keeps of a key's prefix (a Target's): computed
  // once per point read, for every run it asks.
  static uint32_t FilterHash(uint64_t prefix) {
    uint64_t h = prefix * 0xff51afd7ed558ccdULL;  // a multiply-xorshift mix
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return static_cast<uint32_t>(h >> 32);
  }
  // Whether the run may hold a row whose key's prefix has this FilterHash:
  // false only if it holds none.
  bool MayContain(uint32_t hash) const {
    if (filter_.empty()) return true;
    const uint64_t mask = FilterMask(hash);
    return (filter_[FilterWord(hash, filter_.size())] & mask) == mask;
  }
  // Starts loading the filter word MayContain(hash) reads.
  void PrefetchFilter(uint32_t hash) const {
    if (!filter_.empty()) __builtin_prefetch(&filter_[FilterWord(hash, filter_.size())]);
  }
  // Whether the run is laid out as `layout` would lay out its entries.
  bool InLayout(Layout layout) const { return KeepsPrefixes(layout, size()) == !prefixes_.empty(); }
  const char* row(size_t i) const { return region_->Row(refs_[i]); }
  RowRef ref(size_t i) const { return refs_[i]; }
  // The prefix of row i: kept, or read from the row.
  uint64_t PrefixAt(const format::KeyOrder& order, size_t i) const {
    return prefixes_.empty() ? RowPrefix(order, row(i)) : prefixes_[i];
  }
  size_t bytes() const {
    return refs_.capacity() * sizeof(RowRef) +
           (fences_.capacity() + prefixes_.capacity() + top_.capacity() + filter_.capacity()) *
               sizeof(uint64_t);
  }

  // First index whose entry is >= target (size() if none).
  size_t LowerBound(const format::KeyOrder& order, const Target& target) const {
    return Search(order, target, false);
  }
  // First index whose entry is > target (size() if none).
  size_t UpperBound(const format::KeyOrder& order, const Target& target) const {
    return Search(order, target, true);
  }

  // The same search in steps, for a caller that searches several runs: doing
  // each step for every run before the next lets their cache misses overlap.
  // Each step requests the memory the next one reads.
  struct Range {
    size_t lo, hi;
  };
  // 1: the part of the fences or prefixes that holds the target's prefix
  // (through the top index).
  Range Locate(const Target& target) const;
  // 2: the entries that part leaves for the target.
  Range Narrow(const Target& target, Range window) const;
  // 3: requests those rows, if they are few.
  void PrefetchEntries(Range range) const;
  // 4: the first index in range whose row is >= target (> with `upper`).
  size_t Bound(const format::KeyOrder& order, const Target& target, Range range, bool upper) const;

 private:
  // Big arrays are mapped from the kernel and unmapped when the run dies.
  template <typename T>
  using Array = std::vector<T, memory::BlockAllocator<T>>;

  // A run's arrays while it is built, in order: every prefix, or a fence
  // every kFenceStride entries (the layout chosen for its final size).
  struct Parts {
    Parts(const RowRegion* region, size_t n, bool keep_prefixes, Filter filter);
    // Whether the next Add needs its prefix (callers that must read a
    // row for it can skip the read otherwise).
    bool NeedsPrefix() const { return keep || !filter.empty() || refs.size() % kFenceStride == 0; }
    void Add(RowRef ref, uint64_t prefix);
    const RowRegion* region;
    bool keep;
    Array<RowRef> refs;
    Array<uint64_t> fences, prefixes, filter;
  };
  // The filter word of a hash: its high bits scaled to the word count.
  static size_t FilterWord(uint32_t hash, size_t words) {
    return static_cast<size_t>(util::FastRange32(hash, words));
  }
  // The three bits of a hash in its word: from a remix, so that they do not
  // follow the bits that chose the word.
  static uint64_t FilterMask(uint32_t hash) {
    const uint32_t h = hash * 0x9e3779b1u;
    return (uint64_t{1} << (h >> 26)) | (uint64_t{1} << ((h >> 20) & 63)) |
           (uint64_t{1} << ((h >> 14) & 63));
  }
  static Parts FromSlots(const RowRegion* region, const std::vector<RunSlot>& sorted, Layout layout,
                         Filter filter);
  static bool KeepsPrefixes(Layout layout, size_t n) {
    return layout == Layout::kWithPrefixes || (layout == Layout::kAuto && n <= kPrefixedRunMax);
  }
  size_t Search(const format::KeyOrder& order, const Target& target, bool upper) const;
  // The array a search narrows by: every prefix, or the fences.
  const Array<uint64_t>& keys() const { return prefixes_.empty() ? fences_ : prefixes_; }
  // Fills top_ from the fences or prefixes (none for small runs).
  void BuildTop();

  const RowRegion* region_;
  Array<RowRef> refs_;
  Array<uint64_t> fences_;    // kFenced: fences_[j] = prefix of row(j * kFenceStride)
  Array<uint64_t> prefixes_;  // kWithPrefixes: prefixes_[i] = prefix of row(i)
  Array<uint64_t> top_;       // top_[j] = keys[j * kTopStride] of fences_ or prefixes_
  Array<uint64_t> filter_;    // the point filter (kPoint), or empty
  MemoryCounter memory_;      // or nullptr: counted nowhere
};

}  // namespace memrep::runs
