#include "trie/trie_iterator.h"

#include "format/coding.h"

namespace memrep::trie {

EntryView TrieIterator::entry() const {
  if (t_.mode() == Trie::Mode::kRows) return DecodeRow(t_.Row(version_));
  return EntryView{key_, t_.Tag(version_), t_.Value(version_)};
}

void TrieIterator::Land(Ref leaf, bool newest) {
  leaf_ = leaf;
  stamp_.Keep(leaf != 0);
  if (leaf == 0) {
    version_ = 0;
    return;
  }
  buf_ ^= 1;
  t_.PrefetchNeighbour(path_, forward_hint_ != reverse_);
  key_ = t_.KeyOf(leaf, path_, &bufs_[buf_]);
  version_ = t_.Head(leaf);
  if (!newest) {
    for (Ref v = t_.Next(version_); v != 0; v = t_.Next(v)) version_ = v;
  }
}

// REQUIRES: a ReadGuard, Begin() called, Valid().
Ref TrieIterator::Following(bool forward) {
  forward_hint_ = forward;
  const bool bytes_up = forward != reverse_;
  if (PathValid()) return bytes_up ? t_.Advance(&path_) : t_.Retreat(&path_);
  // key_ points into the row or into bufs_[buf_]; Land assembles the next
  // key into the other buffer.
  return bytes_up ? t_.LowerBound(key_, /*strict=*/true, &path_)
                  : t_.LastLE(key_, /*strict=*/true, &path_);
}

void TrieIterator::SeekToFirst() {
  Trie::ReadGuard guard(t_);
  Begin();
  Land(reverse_ ? t_.Last(&path_) : t_.First(&path_), true);
}

void TrieIterator::SeekToLast() {
  Trie::ReadGuard guard(t_);
  Begin();
  Land(reverse_ ? t_.First(&path_) : t_.Last(&path_), false);
}

void TrieIterator::Seek(std::string_view internal_key) {
  const auto [user, seq] = Trie::Split(internal_key);
  Trie::ReadGuard guard(t_);
  Begin();
  // The first key at or after `user` in the rep's order.
  Ref leaf = reverse_ ? t_.LastLE(user, false, &path_) : t_.LowerBound(user, false, &path_);
  Land(leaf, true);
  if (leaf == 0 || key_ != user) return;
  while (version_ != 0 && TagSequence(t_.Tag(version_)) > seq) version_ = t_.Next(version_);
  if (version_ == 0) Land(Following(true), true);
}

void TrieIterator::SeekForPrev(std::string_view internal_key) {
  const auto [user, seq] = Trie::Split(internal_key);
  Trie::ReadGuard guard(t_);
  Begin();
  // The last key at or before `user` in the rep's order.
  Ref leaf = reverse_ ? t_.LowerBound(user, false, &path_) : t_.LastLE(user, false, &path_);
  Land(leaf, false);
  if (leaf == 0 || key_ != user) return;
  // The oldest version with a sequence >= seq.
  Ref found = 0;
  for (Ref v = t_.Head(leaf); v != 0 && TagSequence(t_.Tag(v)) >= seq; v = t_.Next(v)) found = v;
  if (found != 0) {
    version_ = found;
  } else {
    Land(Following(false), false);
  }
}

void TrieIterator::Next() {
  const Ref v = t_.Next(version_);
  if (v != 0) {
    version_ = v;
    return;
  }
  Trie::ReadGuard guard(t_);
  Recheck();
  MEMREP_TRIE_RACE_POINT(kAfterRecheck);
  Land(Following(true), true);
}

void TrieIterator::Prev() {
  const Ref head = t_.Head(leaf_);
  if (version_ != head) {
    Ref v = head;
    while (t_.Next(v) != version_) v = t_.Next(v);
    version_ = v;
    return;
  }
  Trie::ReadGuard guard(t_);
  Recheck();
  MEMREP_TRIE_RACE_POINT(kAfterRecheck);
  Land(Following(false), false);
}

}  // namespace memrep::trie
