// MergingCursor: one ordered cursor over a few sorted slot arrays (the runs of
// a RunSet, plus an iterator's privately sorted tail).
//
// Positioning: moving forward, every source other than the current one rests
// on its first slot greater than the current entry; moving backward, on its
// last slot smaller than it. Entries are distinct across sources, so a change
// of direction moves each other source by exactly one slot.
// Cost: Seek is one binary search per source; Next and Prev compare the K
// source heads (K is small: at most max_runs + 1), mostly by prefix alone.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "format/key_order.h"
#include "sorted_hash/sorted_run.h"

namespace memrep::sorted_hash {

class MergingCursor {
 public:
  explicit MergingCursor(const format::KeyOrder& order) : order_(order) {}

  // Forgets every source; the cursor is then not Valid().
  void Clear() {
    sources_.clear();
    current_ = -1;
  }

  void AddSource(const RunSlot* slots, size_t n) {
    if (n > 0) sources_.push_back(Source{slots, static_cast<ptrdiff_t>(n), 0});
  }

  bool Valid() const { return current_ >= 0; }
  const char* entry() const { return Slot(sources_[current_]).entry; }

  void SeekToFirst();
  void SeekToLast();
  void Seek(std::string_view internal_key);
  void SeekForPrev(std::string_view internal_key);
  void Next();
  void Prev();

 private:
  struct Source {
    const RunSlot* slots;
    ptrdiff_t n;
    ptrdiff_t pos;  // -1 or n: exhausted in that direction
  };
  static const RunSlot& Slot(const Source& s) { return s.slots[s.pos]; }

  void PickSmallest();
  void PickLargest();

  const format::KeyOrder& order_;
  std::vector<Source> sources_;
  int current_ = -1;
  bool forward_ = true;
};

}  // namespace memrep::sorted_hash
