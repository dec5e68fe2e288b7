#include "columnar/columnar_iterator.h"

#include <new>

#include "format/coding.h"

namespace memrep::columnar {

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
  const int64_t n = int64_t(children_[k]->size());
  const int64_t p = pos_[k];
  if (p < 0 || p >= n) return;
  heads_[k] = table_.PrefixOf(children_[k]->ref(size_t(p)));
  // A scan reads entries in key order, which is not the order they were
  // written in: each is a cache miss for its metadata, then for its bytes.
  // Ask for the child's next entries' metadata kFar ahead and, once that
  // has arrived, their key bytes kNear ahead, so the misses overlap.
  constexpr int64_t kFar = 8, kNear = 4;
  const int64_t step = forward_ ? 1 : -1;
  const int64_t far = p + step * kFar, near = p + step * kNear;
  if (far >= 0 && far < n) {
    const EntryRef r = children_[k]->ref(size_t(far));
    const Block* block = table_.BlockOf(r);
    __builtin_prefetch(&block->meta[table_.IndexOf(r)]);
    __builtin_prefetch(&block->prefix[table_.IndexOf(r)]);
  }
  if (near >= 0 && near < n) {
    const Meta& m = table_.MetaOf(children_[k]->ref(size_t(near)));
    __builtin_prefetch(m.key);
    __builtin_prefetch(m.key + m.key_len);  // the value, often on the next line
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
  forward_ = true;
  for (size_t k = 0; k < children_.size(); ++k) {
    pos_[k] = int64_t(children_[k]->Bound(table_, order_, target, upper));
    LoadHead(k);
  }
  FindSmallest();
}

void ColumnarIterator::PositionBackward(const Target& target, bool inclusive) {
  forward_ = false;
  for (size_t k = 0; k < children_.size(); ++k) {
    pos_[k] = int64_t(children_[k]->Bound(table_, order_, target, inclusive)) - 1;
    LoadHead(k);
  }
  FindLargest();
}

void ColumnarIterator::SeekToFirst() {
  if (!Refresh()) return;
  forward_ = true;
  for (size_t k = 0; k < children_.size(); ++k) {
    pos_[k] = 0;
    LoadHead(k);
  }
  FindSmallest();
}

void ColumnarIterator::SeekToLast() {
  if (!Refresh()) return;
  forward_ = false;
  for (size_t k = 0; k < children_.size(); ++k) {
    pos_[k] = int64_t(children_[k]->size()) - 1;
    LoadHead(k);
  }
  FindLargest();
}

void ColumnarIterator::Seek(std::string_view internal_key) {
  if (!Refresh()) return;
  PositionForward(Target::Of(order_, internal_key), /*upper=*/false);
}

void ColumnarIterator::SeekForPrev(std::string_view internal_key) {
  if (!Refresh()) return;
  PositionBackward(Target::Of(order_, internal_key), /*inclusive=*/true);
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
