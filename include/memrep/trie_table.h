// memrep::TrieTable: reads a trie memtable frozen into a table file (the
// trie's convert_to_sst=kFileMmap or kDumpMem, standalone face), in place:
// the file is mapped read-only and searched by the same code as the live
// trie, with no decoding or rebuilding at open. Open costs O(1) in the
// table's size (it checks the footer and the trie's header by checksum, not
// the body; Verify walks the body).
//
//   std::unique_ptr<memrep::TrieTable> table;
//   memrep::Status s = memrep::TrieTable::Open("/data/mem-000042.trie", &table);
//   std::string value;
//   memrep::ValueType type;
//   s = table->Get("apple", /*snapshot=*/100, &value, &type);
//
// Its iterators are MemTableIterators: include "memrep/iterator.h" to use one
// (this header only declares it).
//
// Thread safety: every function may be called from many threads at once. An
// iterator must be destroyed before its table.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "memrep/entry.h"
#include "memrep/export.h"
#include "memrep/status.h"

namespace memrep {

class MemTableIterator;  // memrep/iterator.h
class RepIterator;       // memrep/rep.h

class MEMREP_EXPORT TrieTable {
 public:
  // Maps the table file at `path`. Corruption, saying what is wrong, if it
  // is not a whole trie table (too short, truncated, no footer at its end, a
  // changed byte in its footer or header, another format version);
  // NotSupported if it holds a RocksDB-face (rows) trie, which is no table;
  // IOError if it cannot be opened or mapped.
  static Status Open(const std::string& path, std::unique_ptr<TrieTable>* out);
  ~TrieTable();
  TrieTable(const TrieTable&) = delete;
  TrieTable& operator=(const TrieTable&) = delete;

  // The newest record of `user_key` with sequence <= snapshot: OK with
  // *type set, and *value for a value or a merge operand (a deletion is
  // found too: OK with *type = kDeletion and an empty value, so that it can
  // hide older tables' records). NotFound if the key has no record visible
  // at the snapshot. A snapshot above kMaxSequenceNumber reads as it.
  Status Get(std::string_view user_key, SequenceNumber snapshot, std::string* value,
             ValueType* type) const;

  // Every record in the table's order (its comparator's: bytewise or
  // reverse; sequences descending within a key), as MemTable's iterator.
  Status NewIterator(std::unique_ptr<MemTableIterator>* out) const;

  // Records stored (the memtable's NumEntries when it was frozen). O(1).
  uint64_t NumEntries() const;
  // Whether the table is ordered by the reverse bytewise comparator.
  bool reverse() const;
  // The file's size in bytes.
  uint64_t FileBytes() const;
  // Walks every node, leaf and version (O(size)): Corruption naming the
  // first fault, also if the records counted differ from NumEntries().
  Status Verify() const;

 private:
  struct Impl;
  explicit TrieTable(std::unique_ptr<Impl> impl);
  // The trie's own iterator over the table, which NewIterator wraps: the
  // trie builds no object of a face.
  Status NewRepIterator(std::unique_ptr<RepIterator>* out) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace memrep
