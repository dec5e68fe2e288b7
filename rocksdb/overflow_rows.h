// OverflowRows: where the RocksDB face puts a row that its rep cannot take,
// because the rep's own region is exhausted or its allocator failed. Inside
// RocksDB a write cannot fail (MemTableRep::Insert returns void), so such a
// row is written into RocksDB's arena (pinned, and counted, like every row)
// and kept here, in a sorted set that reads merge with the rep's own rows.
// Meanwhile the adapter reports the memtable as full, so RocksDB switches to
// a new one: the overflow only holds the writes already in flight.
//
// Thread safety: every call from any thread; one mutex guards the set. It
// is only ever taken after a rep has failed, never on the normal paths.
#pragma once

#include <rocksdb/memtablerep.h>

#include <atomic>
#include <set>
#include <string_view>
#include <vector>

#include "concurrency/mutex.h"

namespace memrep::rocksdb_plugin {

class OverflowRows {
 public:
  explicit OverflowRows(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp)
      : rows_(RowLess{&cmp}) {}

  // Adds a row written in RocksDB's arena; false if one with the same user
  // key and sequence is here. (RocksDB's memtable comparator orders by user
  // key and then sequence, ignoring the type: InternalKeyComparator's
  // CompareKeySeq.)
  bool Insert(const char* row);
  bool Contains(std::string_view internal_key) const;
  // The rows, sorted.
  std::vector<const char*> Snapshot() const;
  // Rows inserted so far, and the heap bytes the set takes. O(1).
  size_t count() const { return count_.load(std::memory_order_acquire); }
  size_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  // Rows by RocksDB's own order; also a row against an internal key.
  struct RowLess {
    using is_transparent = void;
    const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator* cmp;
    bool operator()(const char* a, const char* b) const { return (*cmp)(a, b) < 0; }
    bool operator()(const char* row, const ROCKSDB_NAMESPACE::Slice& key) const {
      return (*cmp)(row, key) < 0;
    }
    bool operator()(const ROCKSDB_NAMESPACE::Slice& key, const char* row) const {
      return (*cmp)(row, key) > 0;
    }
  };
  // Per node of the std::set: the pointer and the links.
  static constexpr size_t kNodeBytes = 48;

  mutable concurrency::Mutex mu_;
  std::set<const char*, RowLess> rows_ GUARDED_BY(mu_);
  // release on insert, acquire in count(): a reader that sees the count
  // sees the row (it then reads the set under mu_ anyway).
  std::atomic<size_t> count_{0};
  std::atomic<size_t> bytes_{0};
};

}  // namespace memrep::rocksdb_plugin
