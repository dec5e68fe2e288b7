#include "columnar/columnar_iterator.h"

#include <new>

#include "format/coding.h"

namespace memrep::columnar {

namespace {

Target TargetOf(const format::KeyOrder& order, std::string_view internal_key) {
  return Target(order, internal_key.substr(0, internal_key.size() - 8),
                format::DecodeFixed64(internal_key.data() + internal_key.size() - 8));
}

}  // namespace

const char* ColumnarIterator::row() const {
  const EntryRef r = ref();
  const Block* block = table_.BlockOf(r);
  return block->rows ? block->row(table_.IndexOf(r)) : nullptr;
}

bool ColumnarIterator::Refresh() {
  current_ = -1;
  try {
    std::shared_ptr<const BlockSets::Set> set = sets_->Current();
    const uint64_t resolved = BlockSets::Resolved(*set);
    if (set != set_ || resolved != resolved_ || !status_.ok()) {
      tail_ = set->pending.empty() ? nullptr : sets_->Tail(set);
      set_ = std::move(set);
      resolved_ = resolved;
      children_.clear();
      for (const auto& sorted : set_->sorted) children_.push_back(sorted.get());
      if (tail_ != nullptr) children_.push_back(tail_.get());
      pos_.assign(children_.size(), 0);
      heads_.assign(children_.size(), 0);
    }
    status_ = Status::OK();
    return true;
  } catch (const std::bad_alloc&) {
    set_ = nullptr;
    tail_ = nullptr;
    children_.clear();
    pos_.clear();
    heads_.clear();
    status_ = Status::OutOfMemory("the iterator could not sort the newest entries");
    return false;
  }
}

void ColumnarIterator::LoadHead(size_t k) {
  if (pos_[k] >= 0 && pos_[k] < int64_t(children_[k]->size())) {
    heads_[k] = table_.PrefixOf(children_[k]->ref(size_t(pos_[k])));
  }
}

// Prefixes first, from heads_ (no memory read); keys only where they tie.
int ColumnarIterator::Compare(size_t a, size_t b) const {
  if (heads_[a] != heads_[b]) return heads_[a] < heads_[b] ? -1 : 1;
  return CompareEntries(table_, order_, children_[a]->ref(size_t(pos_[a])), heads_[a],
                        children_[b]->ref(size_t(pos_[b])), heads_[b]);
}

void ColumnarIterator::FindSmallest() {
  current_ = -1;
  for (size_t k = 0; k < children_.size(); ++k) {
    if (pos_[k] >= int64_t(children_[k]->size())) continue;
    if (current_ < 0 || Compare(k, size_t(current_)) < 0) current_ = int(k);
  }
}

void ColumnarIterator::FindLargest() {
  current_ = -1;
  for (size_t k = 0; k < children_.size(); ++k) {
    if (pos_[k] < 0) continue;
    if (current_ < 0 || Compare(k, size_t(current_)) > 0) current_ = int(k);
  }
}

void ColumnarIterator::PositionForward(const Target& target, bool upper) {
  for (size_t k = 0; k < children_.size(); ++k) {
    pos_[k] = int64_t(children_[k]->Bound(table_, order_, target, upper));
    LoadHead(k);
  }
  forward_ = true;
  FindSmallest();
}

void ColumnarIterator::PositionBackward(const Target& target, bool inclusive) {
  for (size_t k = 0; k < children_.size(); ++k) {
    pos_[k] = int64_t(children_[k]->Bound(table_, order_, target, inclusive)) - 1;
    LoadHead(k);
  }
  forward_ = false;
  FindLargest();
}

void ColumnarIterator::SeekToFirst() {
  if (!Refresh()) return;
  for (size_t k = 0; k < children_.size(); ++k) {
    pos_[k] = 0;
    LoadHead(k);
  }
  forward_ = true;
  FindSmallest();
}

void ColumnarIterator::SeekToLast() {
  if (!Refresh()) return;
  for (size_t k = 0; k < children_.size(); ++k) {
    pos_[k] = int64_t(children_[k]->size()) - 1;
    LoadHead(k);
  }
  forward_ = false;
  FindLargest();
}

void ColumnarIterator::Seek(std::string_view internal_key) {
  if (!Refresh()) return;
  PositionForward(TargetOf(order_, internal_key), /*upper=*/false);
}

void ColumnarIterator::SeekForPrev(std::string_view internal_key) {
  if (!Refresh()) return;
  PositionBackward(TargetOf(order_, internal_key), /*inclusive=*/true);
}

void ColumnarIterator::Next() {
  if (forward_) {
    ++pos_[current_];
    LoadHead(size_t(current_));
    FindSmallest();
    return;
  }
  // Direction change: every child just after the current entry.
  const Meta& m = table_.MetaOf(ref());
  const std::string_view user(m.key, m.key_len);
  PositionForward(Target(order_, user, m.tag), /*upper=*/true);
}

void ColumnarIterator::Prev() {
  if (!forward_) {
    --pos_[current_];
    LoadHead(size_t(current_));
    FindLargest();
    return;
  }
  const Meta& m = table_.MetaOf(ref());
  const std::string_view user(m.key, m.key_len);
  PositionBackward(Target(order_, user, m.tag), /*inclusive=*/false);
}

}  // namespace memrep::columnar
