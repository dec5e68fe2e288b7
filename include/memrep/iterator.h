// memrep::MemTableIterator: the standalone face's cursor over a memtable's
// records (MemTable::NewIterator, TrieTable::NewIterator), over any rep's
// RepIterator. It is the interface's, so that every face and table that
// hands one out builds it.
//
// Thread safety: an iterator is its holder's alone; it must be destroyed
// before the memtable or table it reads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "memrep/entry.h"
#include "memrep/export.h"
#include "memrep/rep.h"
#include "memrep/status.h"

namespace memrep {

// A cursor over every record (all versions) in internal-key order: user key
// ascending, then sequence descending.
class MEMREP_EXPORT MemTableIterator {
 public:
  explicit MemTableIterator(std::unique_ptr<RepIterator> rep) : rep_(std::move(rep)) {}

  bool Valid() const { return status_.ok() && rep_->Valid(); }
  // REQUIRES: Valid(). The view is valid until the iterator moves or is destroyed.
  EntryView entry() const { return rep_->entry(); }
  // OK, or why the last positioning call found nothing to show (out of
  // memory); the iterator is then not Valid().
  Status status() const;

  void SeekToFirst();
  void SeekToLast();
  // First record of a key >= user_key visible at `snapshot` (or of a later key).
  // A snapshot or sequence above kMaxSequenceNumber reads as kMaxSequenceNumber,
  // here, in SeekForPrev and in MemTable::Get.
  void Seek(std::string_view user_key, SequenceNumber snapshot = kMaxSequenceNumber);
  // Last record <= (user_key, sequence): with sequence 0, the oldest record of
  // the largest key <= user_key.
  void SeekForPrev(std::string_view user_key, SequenceNumber sequence = 0);
  // REQUIRES: Valid().
  void Next();
  void Prev();

 private:
  // Seek (or with `backward`, SeekForPrev) to (user_key, sequence).
  void SeekTo(std::string_view user_key, SequenceNumber sequence, bool backward);

  std::unique_ptr<RepIterator> rep_;
  std::string scratch_;
  Status status_;  // not OK when the last positioning call failed here (then not Valid())
};

}  // namespace memrep
