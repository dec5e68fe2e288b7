#include "sorted_hash/merging_cursor.h"

namespace memrep::sorted_hash {

void MergingCursor::PickSmallest() {
  current_ = -1;
  for (size_t i = 0; i < sources_.size(); ++i) {
    const Source& s = sources_[i];
    if (s.pos < 0 || s.pos >= s.n) continue;
    if (current_ < 0 || CompareSlots(order_, Slot(s), Slot(sources_[current_])) < 0) {
      current_ = static_cast<int>(i);
    }
  }
}

void MergingCursor::PickLargest() {
  current_ = -1;
  for (size_t i = 0; i < sources_.size(); ++i) {
    const Source& s = sources_[i];
    if (s.pos < 0 || s.pos >= s.n) continue;
    if (current_ < 0 || CompareSlots(order_, Slot(s), Slot(sources_[current_])) > 0) {
      current_ = static_cast<int>(i);
    }
  }
}

void MergingCursor::SeekToFirst() {
  for (Source& s : sources_) s.pos = 0;
  forward_ = true;
  PickSmallest();
}

void MergingCursor::SeekToLast() {
  for (Source& s : sources_) s.pos = s.n - 1;
  forward_ = false;
  PickLargest();
}

void MergingCursor::Seek(std::string_view internal_key) {
  const Target target(order_, internal_key);
  for (Source& s : sources_) {
    s.pos = static_cast<ptrdiff_t>(LowerBound(order_, s.slots, s.n, target));
  }
  forward_ = true;
  PickSmallest();
}

void MergingCursor::SeekForPrev(std::string_view internal_key) {
  const Target target(order_, internal_key);
  for (Source& s : sources_) {
    s.pos = static_cast<ptrdiff_t>(UpperBound(order_, s.slots, s.n, target)) - 1;
  }
  forward_ = false;
  PickLargest();
}

void MergingCursor::Next() {
  if (!forward_) {
    // Others rest on their last slot < current: step each to its first slot > current.
    for (size_t i = 0; i < sources_.size(); ++i) {
      if (static_cast<int>(i) != current_) ++sources_[i].pos;
    }
    forward_ = true;
  }
  ++sources_[current_].pos;
  PickSmallest();
}

void MergingCursor::Prev() {
  if (forward_) {
    // Others rest on their first slot > current: step each to its last slot < current.
    for (size_t i = 0; i < sources_.size(); ++i) {
      if (static_cast<int>(i) != current_) --sources_[i].pos;
    }
    forward_ = false;
  }
  --sources_[current_].pos;
  PickLargest();
}

}  // namespace memrep::sorted_hash
