// Helpers shared by the RocksDB-level tests.
#pragma once

#include <rocksdb/comparator.h>
#include <rocksdb/db.h>
#include <rocksdb/memtablerep.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

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

// The same with column families: the handles of `column_families`, in order.
inline ROCKSDB_NAMESPACE::Status OpenDb(
    const ROCKSDB_NAMESPACE::DBOptions& options, const std::string& path,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& column_families,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles,
    std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
  db->reset();
#if MEMREP_ROCKSDB_AT_LEAST(9, 11)
  return ROCKSDB_NAMESPACE::DB::Open(options, path, column_families, handles, db);
#else
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  const ROCKSDB_NAMESPACE::Status s =
      ROCKSDB_NAMESPACE::DB::Open(options, path, column_families, handles, &raw);
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

// A user key with an 8-byte little-endian timestamp suffix, newest first, like
// RocksDB's own timestamp-aware comparators.
class U64TimestampComparator final : public ROCKSDB_NAMESPACE::Comparator {
 public:
  U64TimestampComparator() : ROCKSDB_NAMESPACE::Comparator(8) {}
  const char* Name() const override { return "test.U64Timestamp"; }
  int Compare(const ROCKSDB_NAMESPACE::Slice& a, const ROCKSDB_NAMESPACE::Slice& b) const override {
    int c = CompareWithoutTimestamp(a, true, b, true);
    return c != 0 ? c : CompareTimestamp(Ts(a), Ts(b));
  }
  int CompareTimestamp(const ROCKSDB_NAMESPACE::Slice& a,
                       const ROCKSDB_NAMESPACE::Slice& b) const override {
    const uint64_t ta = format::DecodeFixed64(a.data()), tb = format::DecodeFixed64(b.data());
    return ta > tb ? -1 : (ta < tb ? 1 : 0);
  }
  int CompareWithoutTimestamp(const ROCKSDB_NAMESPACE::Slice& a, bool,
                              const ROCKSDB_NAMESPACE::Slice& b, bool) const override {
    return ROCKSDB_NAMESPACE::Slice(a.data(), a.size() - 8)
        .compare(ROCKSDB_NAMESPACE::Slice(b.data(), b.size() - 8));
  }
  void FindShortestSeparator(std::string*, const ROCKSDB_NAMESPACE::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}

 private:
  static ROCKSDB_NAMESPACE::Slice Ts(const ROCKSDB_NAMESPACE::Slice& k) {
    return ROCKSDB_NAMESPACE::Slice(k.data() + k.size() - 8, 8);
  }
};
inline const U64TimestampComparator kTimestampComparator;

// A case-folding order: keys of other bytes compare equal.
class CaseFoldingComparator final : public ROCKSDB_NAMESPACE::Comparator {
 public:
  const char* Name() const override { return "test.CaseFolding"; }
  int Compare(const ROCKSDB_NAMESPACE::Slice& a, const ROCKSDB_NAMESPACE::Slice& b) const override {
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
      const int ca = std::tolower(static_cast<unsigned char>(a[i]));
      const int cb = std::tolower(static_cast<unsigned char>(b[i]));
      if (ca != cb) return ca < cb ? -1 : 1;
    }
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  }
  void FindShortestSeparator(std::string*, const ROCKSDB_NAMESPACE::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};
inline const CaseFoldingComparator kCaseFolding;

// Orders 8-byte keys as little-endian integers and counts the calls with a
// key of any other length (RocksDB's own uint64 comparator asserts there
// are none): what a comparator made for one key format expects.
class FixedWidthComparator final : public ROCKSDB_NAMESPACE::Comparator {
 public:
  const char* Name() const override { return "test.FixedWidth"; }
  int Compare(const ROCKSDB_NAMESPACE::Slice& a, const ROCKSDB_NAMESPACE::Slice& b) const override {
    if (a.size() != 8 || b.size() != 8) {
      wrong_width.fetch_add(1, std::memory_order_relaxed);
      return a.compare(b);
    }
    const uint64_t x = Decode(a), y = Decode(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  void FindShortestSeparator(std::string*, const ROCKSDB_NAMESPACE::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
  static std::string Encode(uint64_t v) {
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (8 * i));
    return out;
  }
  static uint64_t Decode(const ROCKSDB_NAMESPACE::Slice& s) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[i]);
    return v;
  }
  mutable std::atomic<uint64_t> wrong_width{0};
};

}  // namespace memrep::testing
