// TrieIterator: an ordered cursor over a Trie's versions, in the rep's order
// (the trie's byte order, or its reverse under the reverse bytewise
// comparator; within a key, sequence descending either way).
//
// Between calls it holds only its leaf and version (never moved or freed)
// and the key (in the row, or assembled in its own buffer). Each call reads
// nodes inside a ReadGuard: it continues from the path of the last call if
// no node has been replaced since (always, once frozen), else it descends
// again from the root with the key. Once frozen, nothing is replaced. So Next and Prev move in
// strict order, and a positioning call sees every insert that returned before it.
#pragma once

#include <string>

#include "memrep/rep.h"
#include "trie/trie.h"

namespace memrep::trie {

class TrieIterator final : public RepIterator {
 public:
  explicit TrieIterator(const Trie& trie) : t_(trie), reverse_(trie.reverse()) {}

  bool Valid() const override { return version_ != 0; }
  EntryView entry() const override;
  const char* row() const override {
    return t_.mode() == Trie::Mode::kRows ? t_.Row(version_) : nullptr;
  }
  void SeekToFirst() override;
  void SeekToLast() override;
  void Seek(std::string_view internal_key) override;
  void SeekForPrev(std::string_view internal_key) override;
  void Next() override;
  void Prev() override;

 private:
  // Puts the cursor on `leaf` (0: nowhere), at its newest or oldest version.
  void Land(Ref leaf, bool newest);
  // The leaf after (before) the current one in the rep's order.
  Ref Following(bool forward);
  // The path of the last call is still good: no node replaced since
  // (Protocol::PathStamp).
  bool PathValid() const { return stamp_.Valid(t_.protocol()); }
  void Begin() { stamp_.Begin(t_.protocol()); }
  void Recheck() { stamp_.Recheck(t_.protocol()); }

  const Trie& t_;
  const bool reverse_;
  Trie::Path path_;
  Protocol::PathStamp stamp_;
  Ref leaf_ = 0;
  Ref version_ = 0;
  std::string_view key_;
  std::string bufs_[2];
  int buf_ = 0;
  bool forward_hint_ = true;  // the direction of the last move: where to prefetch
};

}  // namespace memrep::trie
