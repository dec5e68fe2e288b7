// InternalKeyOrder: the memtable key comparator RocksDB's MemTable hands its
// rep, rebuilt on memrep's KeyOrder because RocksDB's own is internal.
//
// Keys are length-prefixed internal keys (varint32 length | user key | fixed64
// tag) or entries, which begin with one. Order: user key bytewise ascending,
// then sequence descending; the type byte is ignored, as RocksDB's
// InternalKeyComparator::CompareKeySeq does. memrep's sorted hash factory
// probes this comparator and must find it bytewise.
//
// RocksDB's real comparator makes two virtual calls per comparison (the key
// comparator, then the user comparator); this one makes one and inlines
// memcmp, so RocksDB's reps run slightly faster here than inside a DB.
#pragma once

#include <rocksdb/memtablerep.h>

namespace memrep::bench {

class InternalKeyOrder final : public ROCKSDB_NAMESPACE::MemTableRep::KeyComparator {
 public:
  int operator()(const char* prefix_len_key1, const char* prefix_len_key2) const override;
  int operator()(const char* prefix_len_key,
                 const ROCKSDB_NAMESPACE::Slice& internal_key) const override;
};

}  // namespace memrep::bench
