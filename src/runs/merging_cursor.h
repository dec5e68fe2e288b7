// MergingCursor: one ordered cursor over a few sorted runs (the runs of a
// RunSet, plus an iterator's privately sorted tail).
//
// Positioning: moving forward, every source other than the current one rests
// on its first slot greater than the current entry; moving backward, on its
// last slot smaller than it. Entries are distinct across sources, so a change
// of direction moves each other source by exactly one slot.
// Cost: Seek is one binary search per source (on prefixes or fences), done
// step by step across the sources so that their cache misses overlap, and K-1
// comparisons of the source heads (K is small: about max_runs plus the tail's
// levels), by their cached prefixes first. The first Next or Prev after it
// ranks the other sources (insertion sort, at most K(K-1)/2 comparisons);
// from then on a step compares the current source's new head with the best of
// the others, and only when that one is better, walks the rank to re-insert
// it: one comparison while consecutive entries come from one source (the
// versions of a hot key), about K/2 when they alternate at random.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "format/key_order.h"
#include "runs/sorted_run.h"
#include "util/assert.h"

namespace memrep::runs {

class MergingCursor {
 public:
  explicit MergingCursor(const format::KeyOrder& order) : order_(order) {}

  // Forgets every source; the cursor is then not Valid().
  void Clear() {
    sources_.clear();
    others_.clear();
    current_ = -1;
    ranked_ = false;
  }

  // REQUIRES: `run` outlives the cursor's use of it.
  void AddSource(const SortedRun* run) {
    if (run->size() > 0)
      sources_.push_back(Source{run, static_cast<ptrdiff_t>(run->size()), 0, 0, {}});
  }

  bool Valid() const { return current_ >= 0; }
  // REQUIRES: Valid().
  const char* row() const {
    MEMREP_ASSERT(Valid());
    return Row(sources_[current_]);
  }

  void SeekToFirst();
  void SeekToLast();
  void Seek(std::string_view internal_key);
  void SeekForPrev(std::string_view internal_key);
  void Next();
  void Prev();
  // Right after a Seek or SeekForPrev: in some source, a row that does not
  // sort after the row before it (*before), among the rows from two before
  // its landing place to two after; else nullptr (RepIterator's).
  const char* DisorderNearSeek(const char** before) const;

 private:
  struct Source {
    const SortedRun* run;
    ptrdiff_t n;
    ptrdiff_t pos;           // -1 or n: exhausted in that direction
    uint64_t prefix;         // of the entry at pos, when pos is in range
    SortedRun::Range range;  // a search in progress (SeekAll)
  };
  static const char* Row(const Source& s) { return s.run->row(static_cast<size_t>(s.pos)); }
  static bool InRange(const Source& s) { return s.pos >= 0 && s.pos < s.n; }

  // Sets pos and caches the prefix of the entry there (which, in a run that
  // keeps fences only, reads the row: a cache miss). Then asks for the row
  // the next step in the same direction reads, so that it arrives while the
  // caller reads this one and the other sources move.
  void MoveTo(Source& s, ptrdiff_t pos, ptrdiff_t step = 0) {
    s.pos = pos;
    if (!InRange(s)) return;
    s.prefix = s.run->PrefixAt(order_, static_cast<size_t>(pos));
    const ptrdiff_t ahead = pos + step;
    if (step != 0 && ahead >= 0 && ahead < s.n) {
      __builtin_prefetch(s.run->row(static_cast<size_t>(ahead)));
    }
  }
  int Compare(const Source& a, const Source& b) const {
    if (a.prefix != b.prefix) return a.prefix < b.prefix ? -1 : 1;
    return order_.CompareRows(Row(a), Row(b));
  }
  // Whether source a's head comes before source b's in the current direction
  // (heads are distinct entries: never equal).
  bool Before(int a, int b) const {
    const int c = Compare(sources_[a], sources_[b]);
    return forward_ ? c < 0 : c > 0;
  }
  // Positions every source on its first entry >= the key, or with `upper`
  // on its last entry <= it.
  void SeekAll(std::string_view internal_key, bool upper);
  void PickSmallest();
  void PickLargest();
  // Fills others_ with every in-range source but the current one, in order.
  void RankOthers();
  // After the current source moved one step in the current direction: keeps
  // it current while its head still comes first, else hands over to the
  // best of the others and re-inserts it into the rank.
  void Advance();

  const format::KeyOrder& order_;
  std::vector<Source> sources_;
  int current_ = -1;
  bool forward_ = true;
  // When ranked_: the in-range sources other than current_, best first in the
  // current direction (positioning, above, holds for each). A seek or a
  // change of direction clears ranked_; the next step ranks them again.
  std::vector<int> others_;
  bool ranked_ = false;
};

}  // namespace memrep::runs
