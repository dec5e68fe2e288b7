// memrep::MemTable: the standalone face. A multi-version, ordered, in-memory
// write buffer for an LSM engine, with no RocksDB anywhere, over any
// registered rep (memrep/registry.h lists them).
//
// Every record has a user key, a sequence number chosen by the caller (unique
// per user key; at most kMaxSequenceNumber) and a type. A read at snapshot `s`
// sees, for each key, the newest record with sequence <= s.
//
// Thread safety: Put, Delete, Add and Write may be called from many threads at
// once (a rep without concurrent inserts gets them one at a time), and
// concurrently with Get and iterators. Freeze ends writing: a write either
// lands before Freeze returns, and is then visible, or fails with Frozen. An
// iterator must be destroyed before its MemTable.
//
// Errors: every operation that can fail returns a Status and throws nothing
// of memrep's (a callback of yours, or your comparator, may throw: that
// passes through). Functions that only describe (rep_name, ToString-like
// accessors of other headers) return strings and can throw std::bad_alloc
// like any C++ function that returns one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memrep/comparator.h"
#include "memrep/entry.h"
#include "memrep/export.h"
#include "memrep/iterator.h"
#include "memrep/rep.h"
#include "memrep/status.h"

namespace memrep {

class RepLineage;  // memrep/auto.h: include it to make one and to read it

struct MemTableOptions {
  // The rep: a name or alias ("memrep.SortedHash", "sorted_hash"), a name
  // with its positional option ("memrep.SortedHash:1048576"), or an options
  // string ("id=memrep.SortedHash; max_runs=4").
  std::string rep = "memrep.SortedHash";
  // nullptr: bytewise. Must outlive the MemTable, and be one the rep serves
  // (RepTraits::comparators; Open refuses it otherwise).
  const UserKeyComparator* comparator = nullptr;
  // About how many bytes of entries the table will hold before the engine
  // switches it; reps size their indexes from it. Open refuses one larger
  // than the rep holds (InvalidArgument: a trie's 3/4 of mem_cap, the
  // others' kMaxWriteBufferSize).
  uint64_t write_buffer_size = uint64_t{64} << 20;
  // Where the rep takes its memory for entries (must outlive the MemTable);
  // nullptr: memrep's own arena, released with the MemTable.
  Allocator* allocator = nullptr;
  // Size of the blocks memrep's own arena takes from the system.
  size_t arena_block_size = 256 * 1024;
  // The sequence of memtables this one joins (memrep/auto.h): pass the same
  // lineage to every memtable that replaces the one before, and memrep.Auto
  // chooses each one's rep from what the earlier ones were asked to do.
  // nullptr: this memtable has no history (memrep.Auto uses its start rep).
  std::shared_ptr<RepLineage> lineage;
};

// Records written together with consecutive sequence numbers, kept in one
// buffer (no allocation per record). Adding a record fails only for a key or
// value over the size limits (InvalidArgument) or with no memory left
// (OutOfMemory); the batch is then as it was.
class MEMREP_EXPORT WriteBatch {
 public:
  Status Put(std::string_view key, std::string_view value) {
    return Append(ValueType::kValue, key, value);
  }
  Status Delete(std::string_view key) { return Append(ValueType::kDeletion, key, {}); }
  Status Merge(std::string_view key, std::string_view operand) {
    return Append(ValueType::kMerge, key, operand);
  }
  size_t Count() const { return count_; }
  void Clear() {
    rep_.clear();
    count_ = 0;
  }

 private:
  friend class MemTable;
  Status Append(ValueType type, std::string_view key, std::string_view value);
  // Calls fn(type, key, value) for each record, in order.
  template <typename Fn>
  void ForEach(Fn&& fn) const;

  std::string rep_;  // per record: type | varint32 key size | key | varint32 value size | value
  size_t count_ = 0;
};

class MEMREP_EXPORT MemTable {
 public:
  // InvalidArgument if the options are not valid (an unknown rep or option,
  // a value out of range, a comparator the rep cannot serve); OutOfMemory if
  // the rep could not be built.
  static Status Open(const MemTableOptions& options, std::unique_ptr<MemTable>* out);
  // The same, with default options but the rep.
  static Status Open(std::string_view rep, std::unique_ptr<MemTable>* out);
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
  // AlreadyExists (this key already has a record with this sequence;
  // reported as traits().duplicates says, and the caller's error where it
  // does not), Frozen, Full (the rep's region is exhausted: switch memtables),
  // OutOfMemory. A failed write stores nothing.
  Status Add(std::string_view key, SequenceNumber seq, ValueType type, std::string_view value);

  // Adds the records, each with its own sequence and type, in order. Every
  // record is checked before any is added; a record refused by the rep (a
  // duplicate, no memory) stops the batch: the status names it, and the
  // records before it stay.
  Status Write(std::span<const EntryView> records);
  // The batch's records with sequences first_seq, first_seq + 1, ...
  Status Write(const WriteBatch& batch, SequenceNumber first_seq);

  // The value of the newest record of `key` with sequence <= snapshot: OK with
  // *value set; NotFound if there is none or it is a deletion;
  // InvalidArgument if it is a merge operand (resolve those with an iterator).
  Status Get(std::string_view key, SequenceNumber snapshot, std::string* value) const;

  // Get for many keys at one snapshot, in one call: (*values)[i] and
  // (*statuses)[i] are what Get(keys[i], snapshot, &(*values)[i]) would set
  // and return (resized to keys.size()). One buffer holds every lookup key,
  // and the rep may start loading the next keys' memory while it answers
  // one. Returns OK, or OutOfMemory if the call could not allocate its
  // buffers (then no key was looked up).
  Status MultiGet(std::span<const std::string_view> keys, SequenceNumber snapshot,
                  std::vector<std::string>* values, std::vector<Status>* statuses) const;

  // An iterator over the table as it is at each positioning call.
  Status NewIterator(std::unique_ptr<MemTableIterator>* out) const;

  // Makes the table read-only: waits for writes in progress (a write that
  // started before lands and is visible), refuses later ones with Frozen,
  // and lets the rep sort itself for the flush. Never waits for that sort.
  // Returns the rep's FreezeResult: OK, or why a conversion the rep was
  // configured for failed (the trie's table file: convert_to_sst); the table
  // is frozen and readable either way. Calling it again returns the same.
  Status Freeze();
  bool frozen() const;

  // Calls fn on every record in order: the flush of a frozen table to a sorted
  // file. InvalidArgument if the table is not frozen.
  Status Drain(const std::function<void(const EntryView&)>& fn) const;

  // Bytes held: memrep's arena (when it is the allocator) plus the rep's own
  // structures. O(1).
  size_t MemoryUsage() const;
  // The rep asks to be switched soon (its region is more than half used).
  bool NearlyFull() const;
  uint64_t NumEntries() const;
  // The rep's canonical name and what it can do.
  const std::string& rep_name() const;
  const RepTraits& traits() const;

 private:
  struct Impl;
  explicit MemTable(std::unique_ptr<Impl> impl);
  Status Validate(const EntryView& record) const;

  std::unique_ptr<Impl> impl_;
};

}  // namespace memrep
