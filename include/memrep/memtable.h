// memrep::MemTable: the standalone face. A multi-version, ordered, in-memory
// write buffer for an LSM engine, with no RocksDB anywhere.
//
// Every record has a user key, a sequence number chosen by the caller (unique
// per user key; at most kMaxSequenceNumber) and a type. A read at snapshot `s`
// sees, for each key, the newest record with sequence <= s.
//
// Thread safety: Put, Delete, Add and Write may be called from many threads at
// once, and concurrently with Get and iterators. Freeze ends writing: writes
// after it fail with a Frozen status. An iterator must be destroyed before its
// MemTable.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "memrep/comparator.h"
#include "memrep/entry.h"
#include "memrep/rep.h"
#include "memrep/sorted_hash.h"
#include "memrep/status.h"

namespace memrep {

enum class RepKind {
  kSortedHash,
};

struct MemTableOptions {
  RepKind rep = RepKind::kSortedHash;
  SortedHashOptions sorted_hash;
  // nullptr: bytewise. Must outlive the MemTable; see comparator.h for what it must satisfy.
  const UserKeyComparator* comparator = nullptr;
  // Size of the arena blocks entries are written into.
  size_t arena_block_size = 256 * 1024;
};

// Records written together with consecutive sequence numbers.
class WriteBatch {
 public:
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);
  size_t Count() const { return ops_.size(); }
  void Clear() { ops_.clear(); }

 private:
  friend class MemTable;
  struct Op {
    ValueType type;
    std::string key;
    std::string value;
  };
  std::vector<Op> ops_;
};

// A cursor over every record (all versions) in internal-key order: user key
// ascending, then sequence descending.
class MemTableIterator {
 public:
  explicit MemTableIterator(std::unique_ptr<RepIterator> rep) : rep_(std::move(rep)) {}

  bool Valid() const { return rep_->Valid(); }
  // REQUIRES: Valid(). Views stay valid for the MemTable's lifetime.
  EntryView entry() const { return DecodeEntry(rep_->entry()); }

  void SeekToFirst() { rep_->SeekToFirst(); }
  void SeekToLast() { rep_->SeekToLast(); }
  // First record of a key >= user_key visible at `snapshot` (or of a later key).
  void Seek(std::string_view user_key, SequenceNumber snapshot = kMaxSequenceNumber);
  // Last record <= (user_key, sequence): with sequence 0, the oldest record of
  // the largest key <= user_key.
  void SeekForPrev(std::string_view user_key, SequenceNumber sequence = 0);
  void Next() { rep_->Next(); }
  void Prev() { rep_->Prev(); }

 private:
  std::unique_ptr<RepIterator> rep_;
  std::string scratch_;
};

class MemTable {
 public:
  // InvalidArgument if the options are not valid.
  static Status Open(const MemTableOptions& options, std::unique_ptr<MemTable>* out);
  ~MemTable();
  MemTable(const MemTable&) = delete;
  MemTable& operator=(const MemTable&) = delete;

  Status Put(std::string_view key, std::string_view value, SequenceNumber seq) {
    return Add(key, seq, ValueType::kValue, value);
  }
  Status Delete(std::string_view key, SequenceNumber seq) {
    return Add(key, seq, ValueType::kDeletion, {});
  }
  // Errors: InvalidArgument (key or value too large, sequence above
  // kMaxSequenceNumber, a type other than value, deletion or merge),
  // AlreadyExists (this key already has a record with this sequence), Frozen.
  Status Add(std::string_view key, SequenceNumber seq, ValueType type, std::string_view value);

  // Adds the batch's records with sequences first_seq, first_seq + 1, ...
  // Every record is checked before any is added; a record refused as a
  // duplicate stops the batch (AlreadyExists names it) and the ones before it stay.
  Status Write(const WriteBatch& batch, SequenceNumber first_seq);

  // The value of the newest record of `key` with sequence <= snapshot: OK with
  // *value set; NotFound if there is none or it is a deletion;
  // InvalidArgument if it is a merge operand (resolve those with an iterator).
  Status Get(std::string_view key, SequenceNumber snapshot, std::string* value) const;

  std::unique_ptr<MemTableIterator> NewIterator() const;

  // Makes the table read-only; the rep sorts itself for the flush.
  void Freeze();
  bool frozen() const;

  // Calls fn on every record in order: the flush of a frozen table to a sorted
  // file. InvalidArgument if the table is not frozen.
  Status Drain(const std::function<void(const EntryView&)>& fn) const;

  // Bytes held: the arena plus the rep's own structures. O(1).
  size_t MemoryUsage() const;
  uint64_t NumEntries() const;
  const Rep& rep() const { return *rep_; }

 private:
  struct Impl;
  explicit MemTable(std::unique_ptr<Impl> impl);
  Status Validate(std::string_view key, SequenceNumber seq, ValueType type,
                  std::string_view value) const;
  Status Insert(std::string_view key, SequenceNumber seq, ValueType type, std::string_view value);

  std::unique_ptr<Impl> impl_;
  Rep* rep_;
};

}  // namespace memrep
