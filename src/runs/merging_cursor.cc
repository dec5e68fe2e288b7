#include "runs/merging_cursor.h"

#include <algorithm>

namespace memrep::runs {

void MergingCursor::PickSmallest() {
  ranked_ = false;
  current_ = -1;
  for (size_t i = 0; i < sources_.size(); ++i) {
    const Source& s = sources_[i];
    if (!InRange(s)) continue;
    if (current_ < 0 || Compare(s, sources_[current_]) < 0) current_ = static_cast<int>(i);
  }
}

void MergingCursor::PickLargest() {
  ranked_ = false;
  current_ = -1;
  for (size_t i = 0; i < sources_.size(); ++i) {
    const Source& s = sources_[i];
    if (!InRange(s)) continue;
    if (current_ < 0 || Compare(s, sources_[current_]) > 0) current_ = static_cast<int>(i);
  }
}

void MergingCursor::RankOthers() {
  others_.clear();
  for (int i = 0; i < static_cast<int>(sources_.size()); ++i) {
    if (i == current_ || !InRange(sources_[i])) continue;
    // Insertion: K is small.
    size_t j = others_.size();
    others_.push_back(i);
    for (; j > 0 && Before(i, others_[j - 1]); --j) others_[j] = others_[j - 1];
    others_[j] = i;
  }
  ranked_ = true;
}

void MergingCursor::Advance() {
  if (!ranked_) RankOthers();
  const int moved = current_;
  if (!InRange(sources_[moved])) {
    // Exhausted in this direction: the best of the others, if any, is next.
    if (others_.empty()) {
      current_ = -1;
      return;
    }
    current_ = others_.front();
    others_.erase(others_.begin());
    return;
  }
  if (others_.empty() || Before(moved, others_.front())) return;
  // The best of the others is next; `moved` takes its place in the rank,
  // shifting the ones before it up by one.
  current_ = others_.front();
  size_t j = 1;
  for (; j < others_.size() && Before(others_[j], moved); ++j) others_[j - 1] = others_[j];
  others_[j - 1] = moved;
}

void MergingCursor::SeekToFirst() {
  for (Source& s : sources_) MoveTo(s, 0);
  forward_ = true;
  PickSmallest();
}

void MergingCursor::SeekToLast() {
  for (Source& s : sources_) MoveTo(s, s.n - 1);
  forward_ = false;
  PickLargest();
}

void MergingCursor::SeekAll(std::string_view internal_key, bool upper) {
  // Step by step across the sources (see SortedRun::Locate): each source's
  // misses overlap the others' instead of adding up.
  const Target target(order_, internal_key);
  for (Source& s : sources_) s.range = s.run->Locate(target);
  for (Source& s : sources_) s.range = s.run->Narrow(target, s.range);
  for (Source& s : sources_) s.run->PrefetchEntries(s.range);
  for (Source& s : sources_) {
    const size_t bound = s.run->Bound(order_, target, s.range, upper);
    // Seek rests on the first entry >= the key; SeekForPrev on the last <= it.
    MoveTo(s, static_cast<ptrdiff_t>(bound) - (upper ? 1 : 0), upper ? -1 : 1);
  }
}

void MergingCursor::Seek(std::string_view internal_key) {
  SeekAll(internal_key, false);
  forward_ = true;
  PickSmallest();
}

void MergingCursor::SeekForPrev(std::string_view internal_key) {
  SeekAll(internal_key, true);
  forward_ = false;
  PickLargest();
}

void MergingCursor::Next() {
  MEMREP_ASSERT(Valid());
  if (!forward_) {
    // Others rest on their last entry < current: step each to its first entry > current.
    for (size_t i = 0; i < sources_.size(); ++i) {
      if (static_cast<int>(i) != current_) MoveTo(sources_[i], sources_[i].pos + 1);
    }
    forward_ = true;
    ranked_ = false;
  }
  Source& s = sources_[current_];
  MoveTo(s, s.pos + 1, 1);
  Advance();
}

void MergingCursor::Prev() {
  MEMREP_ASSERT(Valid());
  if (forward_) {
    // Others rest on their first entry > current: step each to its last entry < current.
    for (size_t i = 0; i < sources_.size(); ++i) {
      if (static_cast<int>(i) != current_) MoveTo(sources_[i], sources_[i].pos - 1);
    }
    forward_ = false;
    ranked_ = false;
  }
  Source& s = sources_[current_];
  MoveTo(s, s.pos - 1, -1);
  Advance();
}

const char* MergingCursor::DisorderNearSeek(const char** before) const {
  // The window is enough for a key moved out of order at or beside where
  // the search landed, where it could have misled the search; a row
  // further off the search stepped over (its rows stay in order).
  for (const Source& s : sources_) {
    const ptrdiff_t first = std::max<ptrdiff_t>(s.pos - 2, 0);
    const ptrdiff_t last = std::min<ptrdiff_t>(s.pos + 2, s.n - 1);
    for (ptrdiff_t i = first; i < last; ++i) {
      const char* a = s.run->row(static_cast<size_t>(i));
      const char* b = s.run->row(static_cast<size_t>(i + 1));
      if (order_.CompareRows(a, b) >= 0) {
        *before = a;
        return b;
      }
    }
  }
  return nullptr;
}

}  // namespace memrep::runs
