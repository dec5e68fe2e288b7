// RunIterator: the rep iterator over a RunIndex, shared by every rep built on
// one. Each positioning call (SeekToFirst, SeekToLast, Seek, SeekForPrev)
// first takes a new view if rows were pushed or runs merged since the last
// one, so it sees every row pushed before the call (the rep contract's
// point 3: RocksDB's Refresh and tailing iterators seek an old iterator
// again). Next and Prev stay on the current view, so a scan is a consistent
// sequence.
//
// If the view cannot be built for lack of memory, the iterator is not Valid()
// and status() says OutOfMemory until a later positioning call succeeds.
#pragma once

#include <memory>

#include "memrep/rep.h"
#include "runs/merging_cursor.h"
#include "runs/run_index.h"

namespace memrep::runs {

class RunIterator final : public RepIterator {
 public:
  // The first view is taken by the first positioning call, not here: an
  // iterator is always positioned before it is read. REQUIRES: `index`
  // outlives the iterator (the rep holds it; contract: an iterator is
  // destroyed before its rep). A pointer, not a counted reference: a count
  // per iterator would be a cache line that every reader thread writes.
  explicit RunIterator(RunIndex* index) : index_(index), cursor_(index_->order()) {}
  // The view goes back to the thread's reader slot, for its next read to
  // extend (RunIndex::ReturnView).
  ~RunIterator() override;

  bool Valid() const override { return cursor_.Valid(); }
  const char* row() const override { return cursor_.row(); }
  Status status() const override { return status_; }
  void SeekToFirst() override {
    if (Refresh()) cursor_.SeekToFirst();
  }
  void SeekToLast() override {
    if (Refresh()) cursor_.SeekToLast();
  }
  void Seek(std::string_view internal_key) override {
    if (Refresh()) cursor_.Seek(internal_key);
  }
  void SeekForPrev(std::string_view internal_key) override {
    if (Refresh()) cursor_.SeekForPrev(internal_key);
  }
  void Next() override { cursor_.Next(); }
  void Prev() override { cursor_.Prev(); }
  const char* DisorderNearSeek(const char** before) const override {
    return cursor_.DisorderNearSeek(before);
  }

 private:
  // Takes a new view unless the current one still shows everything; false
  // (and an invalid cursor) if it could not.
  bool Refresh();

  // Lets the view go: back to the thread's reader slot.
  void GiveBack();
  RunIndex* const index_;
  // Lent by the index (ReaderView): keeps its runs alive.
  RunIndex::View view_;
  MergingCursor cursor_;
  Status status_;
};

}  // namespace memrep::runs
