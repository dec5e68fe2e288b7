#include "runs/run_iterator.h"

#include <new>

namespace memrep::runs {

RunIterator::~RunIterator() {
  cursor_.Clear();
  GiveBack();
}

void RunIterator::GiveBack() {
  RunIndex::View view = std::move(view_);
  view_ = RunIndex::View{};
  index_->ReturnView(std::move(view));
}

bool RunIterator::Refresh() {
  // An unchanged version and unchanged heads mean no merge replaced the
  // view's runs and no row was pushed since: the view is complete. Either
  // change takes a new view: a merged set is searched with fewer binary
  // searches, and the old runs are let go.
  if (view_.set != nullptr && status_.ok() && index_->Current(view_)) return true;
  cursor_.Clear();
  try {
    GiveBack();  // for ReaderView to extend, or let go before sorting
    view_ = index_->ReaderView();
    view_.ForEachSource([&](const SortedRun* source) { cursor_.AddSource(source); });
  } catch (const std::bad_alloc&) {
    view_ = RunIndex::View{};
    cursor_.Clear();
    status_ = Status::OutOfMemory("an iterator could not sort the memtable's newest entries");
    return false;
  }
  status_ = Status::OK();
  return true;
}

}  // namespace memrep::runs
