// ColumnarIterator: an ordered cursor over a columnar rep: a merge of the
// sorted blocks of a BlockSets::Set and the tail of its pending entries.
//
// Each positioning call (Seek*, SeekToFirst/Last) takes the current set, and
// a tail if entries arrived since its last one, so it sees every insert that
// returned before it (contract point 3); Next and Prev walk that view, in
// strict order across direction changes: a change repositions every child
// just past (or before) the current entry. Each child's current prefix is
// kept, so choosing the next entry reads no memory unless prefixes tie.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "columnar/block_set.h"
#include "columnar/sorted_block.h"
#include "memrep/rep.h"

namespace memrep::columnar {

class ColumnarIterator final : public RepIterator {
 public:
  ColumnarIterator(const BlockTable& table, const format::KeyOrder& order,
                   std::shared_ptr<BlockSets> sets)
      : table_(table), order_(order), sets_(std::move(sets)) {}

  bool Valid() const override { return current_ >= 0; }
  EntryView entry() const override { return table_.EntryOf(ref()); }
  const char* row() const override;
  Status status() const override { return status_; }
  void SeekToFirst() override;
  void SeekToLast() override;
  void Seek(std::string_view internal_key) override;
  void SeekForPrev(std::string_view internal_key) override;
  void Next() override;
  void Prev() override;

 private:
  EntryRef ref() const { return children_[current_]->ref(size_t(pos_[current_])); }
  // Takes the current view; false (and not Valid) if it could not be had.
  bool Refresh();
  // Every child at the first entry >= target (> with `upper`); then the
  // smallest of them.
  void PositionForward(const Target& target, bool upper);
  // Every child at the last entry < target (<= with `inclusive`); then the largest.
  void PositionBackward(const Target& target, bool inclusive);
  void FindSmallest();
  void FindLargest();
  int Compare(size_t a, size_t b) const;
  // Loads child k's entry prefix into heads_ (if it has an entry there).
  void LoadHead(size_t k);

  const BlockTable& table_;
  const format::KeyOrder& order_;
  const std::shared_ptr<BlockSets> sets_;
  std::shared_ptr<const BlockSets::Set> set_;
  uint64_t resolved_ = 0;
  std::shared_ptr<const SortedBlock> tail_;
  std::vector<const SortedBlock*> children_;
  std::vector<int64_t> pos_;     // per child: -1 .. size
  std::vector<uint64_t> heads_;  // per child: the prefix of its entry at pos_, if any
  int current_ = -1;
  bool forward_ = true;
  Status status_;
};

}  // namespace memrep::columnar
