// Helpers shared by the RocksDB-level tests.
#pragma once

#include <rocksdb/comparator.h>
#include <rocksdb/db.h>
#include <rocksdb/memtablerep.h>

#include <memory>
#include <string>

#include "format/coding.h"
#include "rocksdb_compat.h"

namespace memrep::testing {

// DB::Open into a std::unique_ptr, in every RocksDB the tests build against:
// RocksDB 9.11 added that form, and 11.0 removed the one with a DB**. On
// failure *db is empty.
inline ROCKSDB_NAMESPACE::Status OpenDb(const ROCKSDB_NAMESPACE::Options& options,
                                        const std::string& path,
                                        std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
  db->reset();
#if MEMREP_ROCKSDB_AT_LEAST(9, 11)
  return ROCKSDB_NAMESPACE::DB::Open(options, path, db);
#else
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  const ROCKSDB_NAMESPACE::Status s = ROCKSDB_NAMESPACE::DB::Open(options, path, &raw);
  db->reset(raw);
  return s;
#endif
}

// A memtable's KeyComparator, as RocksDB's MemTable builds it: internal keys
// (length-prefixed) ordered by `user` on the user key, then sequence
// descending.
class TestKeyComparator final : public ROCKSDB_NAMESPACE::MemTableRep::KeyComparator {
 public:
  explicit TestKeyComparator(const ROCKSDB_NAMESPACE::Comparator* user) : user_(user) {}
  DecodedType decode_key(const char* key) const override {
    return ROCKSDB_NAMESPACE::GetLengthPrefixedSlice(key);
  }
  int operator()(const char* a, const char* b) const override {
    return Compare(decode_key(a), decode_key(b));
  }
  int operator()(const char* a, const DecodedType& b) const override {
    return Compare(decode_key(a), b);
  }

 private:
  int Compare(ROCKSDB_NAMESPACE::Slice a, ROCKSDB_NAMESPACE::Slice b) const {
    const ROCKSDB_NAMESPACE::Slice ua(a.data(), a.size() - 8), ub(b.data(), b.size() - 8);
    const int c = user_->Compare(ua, ub);
    if (c != 0) return c;
    const uint64_t ta = format::DecodeFixed64(a.data() + a.size() - 8) >> 8;
    const uint64_t tb = format::DecodeFixed64(b.data() + b.size() - 8) >> 8;
    return ta > tb ? -1 : (ta < tb ? 1 : 0);
  }
  const ROCKSDB_NAMESPACE::Comparator* user_;
};

}  // namespace memrep::testing
