// SortedRun: an immutable, sorted array of entry pointers, each stored next to
// its key's 8-byte order-preserving prefix.
//
//   slots: [ prefix | entry* ][ prefix | entry* ] ... 16 bytes per entry
//
// A binary search reads the prefix beside the pointer, so a probe whose prefix
// differs from the target's decides without touching the entry (a cache miss
// in the arena). Only equal prefixes fall back to a full key comparison.
//
// Thread safety: immutable after construction; shared by reference count.
// Memory: each run adds its bytes to a counter shared with its rep when built
// and subtracts them when destroyed, so the rep reports them in O(1).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "format/key_order.h"

namespace memrep::sorted_hash {

struct RunSlot {
  uint64_t prefix;
  const char* entry;
};

inline RunSlot MakeSlot(const format::KeyOrder& order, const char* entry) {
  uint64_t tag;
  return RunSlot{order.Prefix(format::EntryUserKey(entry, &tag)), entry};
}

inline int CompareSlots(const format::KeyOrder& order, const RunSlot& a, const RunSlot& b) {
  if (a.prefix != b.prefix) return a.prefix < b.prefix ? -1 : 1;
  return order.CompareEntries(a.entry, b.entry);
}

// A seek target, with its prefix computed once.
struct Target {
  Target(const format::KeyOrder& order, std::string_view internal_key)
      : internal_key(internal_key),
        prefix(order.Prefix(internal_key.substr(0, internal_key.size() - 8))) {}
  std::string_view internal_key;
  uint64_t prefix;
};

inline int CompareSlotToTarget(const format::KeyOrder& order, const RunSlot& slot,
                               const Target& target) {
  if (slot.prefix != target.prefix) return slot.prefix < target.prefix ? -1 : 1;
  return order.CompareEntryToKey(slot.entry, target.internal_key);
}

// First index in slots[0, n) whose entry is >= target (n if none).
size_t LowerBound(const format::KeyOrder& order, const RunSlot* slots, size_t n,
                  const Target& target);
// First index whose entry is > target (n if none).
size_t UpperBound(const format::KeyOrder& order, const RunSlot* slots, size_t n,
                  const Target& target);

// Sorts distinct entries' slots in place.
void SortSlots(const format::KeyOrder& order, std::vector<RunSlot>* slots);

using MemoryCounter = std::shared_ptr<std::atomic<int64_t>>;

class SortedRun {
 public:
  // REQUIRES: `sorted` is sorted and holds distinct entries.
  SortedRun(std::vector<RunSlot> sorted, MemoryCounter memory);
  ~SortedRun();
  SortedRun(const SortedRun&) = delete;
  SortedRun& operator=(const SortedRun&) = delete;

  // A run holding the entries of both, which must not share an entry.
  static std::shared_ptr<const SortedRun> Merge(const format::KeyOrder& order, const SortedRun& a,
                                                const SortedRun& b, MemoryCounter memory);

  size_t size() const { return slots_.size(); }
  const RunSlot* slots() const { return slots_.data(); }
  size_t bytes() const { return slots_.capacity() * sizeof(RunSlot); }

 private:
  std::vector<RunSlot> slots_;
  MemoryCounter memory_;
};

}  // namespace memrep::sorted_hash
