// The column family's own comparator, read from a memtable's key comparator,
// and memrep's view of it. RocksDB hands a rep only its MemTable's
// MemTableRep::KeyComparator, which compares length-prefixed internal keys;
// when it is RocksDB's own (MemTable::KeyComparator, recognised by its
// virtual table), the rocksdb::Comparator inside it is the column family's,
// and a rep whose order comes from comparisons compares user keys with it
// directly: a virtual call per comparison, as RocksDB's skip list pays.
#pragma once

#include <rocksdb/comparator.h>
#include <rocksdb/memtablerep.h>

#include <memory>
#include <string_view>

#include "memrep/comparator.h"

namespace memrep::rocksdb_plugin {

// The user comparator of `cmp` if it is RocksDB's MemTable::KeyComparator;
// nullptr for any other key comparator (a test's or a benchmark's own).
const ROCKSDB_NAMESPACE::Comparator* UserComparatorOf(
    const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp);

// memrep's BytewiseComparator() or ReverseBytewiseComparator() when `user`
// is RocksDB's own object for that order (compared by address: a comparator
// that only borrows the name is called as it is); nullptr otherwise.
const UserKeyComparator* BuiltinOrderOf(const ROCKSDB_NAMESPACE::Comparator* user);

// A rocksdb::Comparator as memrep's UserKeyComparator. It says its keys are
// equal only when their bytes are when RocksDB's comparator says so and has
// no timestamp (a Get reads a key's versions across its timestamps, which a
// hash of the bytes cannot find).
class RocksComparator final : public UserKeyComparator {
 public:
  explicit RocksComparator(const ROCKSDB_NAMESPACE::Comparator* user) : user_(user) {}
  const char* Name() const override { return user_->Name(); }
  int Compare(std::string_view a, std::string_view b) const override {
    return user_->Compare(ROCKSDB_NAMESPACE::Slice(a.data(), a.size()),
                          ROCKSDB_NAMESPACE::Slice(b.data(), b.size()));
  }
  bool EqualOnlyWhenBytesEqual() const override {
    return !user_->CanKeysWithDifferentByteContentsBeEqual() && user_->timestamp_size() == 0;
  }

 private:
  const ROCKSDB_NAMESPACE::Comparator* const user_;
};

// The one way the plugin learns a memtable's order: the order memrep
// compares the user keys of `cmp` in, or nullptr when it cannot be read.
// - RocksDB's own key comparator (UserComparatorOf) names the column
//   family's comparator: memrep's inline order for RocksDB's two bytewise
//   objects (BuiltinOrderOf, by address), otherwise that comparator itself,
//   called per comparison (a RocksComparator left in *owned). It is never
//   called with keys it was not made for (one may assert their length).
// - Any other key comparator (a benchmark's or a test's) is probed with
//   crafted keys (ProbeOrder): one of the two bytewise orders, or nullptr.
const UserKeyComparator* OrderOf(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
                                 std::unique_ptr<UserKeyComparator>* owned);

}  // namespace memrep::rocksdb_plugin
