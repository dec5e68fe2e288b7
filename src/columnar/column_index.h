// ColumnIndex: the columnar rep's point index, a growing set of ColumnTables
// (concurrency/generations.h), so that an empty memtable holds half a
// kibibyte of buckets and a full one about a bucket per kBytesPerBucket
// bytes of rows, whatever RocksDB told the rep of its size.
//
//   tables:  T0 (8 buckets) ... Tn-1 (the newest, kGrowth times the one
//            before, at most max_buckets)
//   a key:   its version chain in one slot of one table: the table a writer
//            found the key in, else (a new key) the newest
//
// As HashIndex (sorted_hash/hash_index.h, which says why this is enough):
// Insert looks for the key in the newest table, then, unless the newest
// table's older words (a bit per older key: invariant 8) rule it out, in the
// older ones, and links the version into the chain it finds; a new key goes
// to the newest table. A lookup searches the tables newest first and stops at the first
// chain it finds, unless that chain's home bucket has the split mark (two
// writers linked the same new key into two tables around a growth): then
// it follows the key's chains of every table, merged by sequence.
//
// Thread safety: Insert from many threads at once, each with a stash of its
// own; lookups concurrently with them, taking no lock.
// Invariants (the tables' own are ColumnTable's):
//  6. Writer W links a new key K into table t only after looking for K in
//     every table it saw (count_ and the slots loaded seq_cst), then loads
//     count_ again (seq_cst) and marks K's home bucket in every table above
//     t, before its insert returns (HashIndex, invariant 6, proves it).
//  7. A version is linked into a chain only where the writer found the key.
//  8. Covering (Generations): once table u is covered, a key whose bit u's
//     older word lacks has no version in any table, for a thread that
//     loaded the covered flag before the word. The proof is HashIndex's
//     invariant 8, with the slot claim (and an overflow bucket's link, both
//     seq_cst) for the head's CAS, and Cover's seq_cst reads of every older
//     table's slots and overflow links for the grower's reads of the heads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

#include "columnar/column_table.h"
#include "concurrency/growing_tables.h"

namespace memrep::columnar {

class ColumnIndex {
 public:
  static constexpr int kMaxTables = 14;
  static constexpr uint64_t kFirstBuckets = 8;  // 512 bytes
  static constexpr uint64_t kGrowth = 4;
  static constexpr uint64_t kEntriesPerBucket = 9;  // of 12 slots
  using Result = ColumnTable::Result;
  using OverflowStash = ColumnTable::OverflowStash;

  // first_buckets: the first table's count; max_buckets: the most a table
  // has; bytes_per_bucket: the rows a bucket is for. REQUIRES:
  // 0 < first_buckets <= max_buckets < 2^32.
  ColumnIndex(RowRegion* region, uint64_t first_buckets, uint64_t max_buckets,
              uint64_t bytes_per_bucket)
      : region_(*region),
        tables_(region, {first_buckets, max_buckets, bytes_per_bucket, kEntriesPerBucket, kGrowth},
                "columnar index table") {}
  ColumnIndex(const ColumnIndex&) = delete;
  ColumnIndex& operator=(const ColumnIndex&) = delete;

  // The first table, from `allocator`, which later tables come from too.
  Status Init(Allocator* allocator) { return tables_.Init(allocator); }

  // Links node `ref` under its user key (whose hash is `hash`): ColumnTable's
  // results, across the tables.
  Result Insert(const format::KeyOrder& order, RowRef ref, uint64_t hash, OverflowStash* stash) {
    return InsertSeeing(order, ref, hash, stash, tables_.count_seq_cst());  // invariant 6
  }
  // Insert by a writer that loaded count_ as `tables` (a test passes fewer
  // than there are, as a writer delayed across a growth would see).
  Result InsertSeeing(const format::KeyOrder& order, RowRef ref, uint64_t hash,
                      OverflowStash* stash, int tables);

  // The heads of the key's version chains, newest version first in each, in
  // heads[0..return): one chain, or none, but for a split key.
  int FindChains(const format::KeyOrder& order, std::string_view user_key, uint64_t hash,
                 RowRef* heads) const;
  // The next older version after `ref`, or 0.
  RowRef Older(RowRef ref) const {
    return NodeAt(region_, ref)->older.load(std::memory_order_acquire);  // invariant 3
  }
  // Calls fn(v) on each candidate of another key that FindChains of
  // user_key compares, in the tables it looks in, newest first, until fn
  // returns false (ColumnarRep::ProbedRows).
  template <typename Fn>
  void ForEachCompared(const format::KeyOrder& order, std::string_view user_key, uint64_t hash,
                       Fn&& fn) const {
    // FindChains' tables: the newest, older ones while none has the key
    // (unless the older bits rule them out), every older one after a split.
    const int n = tables_.count();
    const bool covered = tables_.covered(n - 1);  // before the older bits: invariant 8
    bool split = false;
    for (int i = n - 1; i >= 0; --i) {
      const ColumnTable& table = tables_.table(i);
      bool home_split, stopped = false;
      const RowRef v = table.FindSeeing(order, user_key, hash, &home_split, fn, &stopped);
      if (stopped) return;
      if (v == 0) {
        if (!split && i == n - 1 && covered && !table.MayBeOlder(hash)) return;
        continue;
      }
      if (split) continue;
      if (!home_split) return;
      split = true;
    }
  }

  // Adds a table if the rows (their bytes, and entries(), how many) have
  // outgrown the newest (GrowingTables::MaybeGrow): one relaxed load when not.
  template <typename Entries>
  void MaybeGrow(size_t row_bytes, Entries&& entries) {
    tables_.MaybeGrow(row_bytes, entries);
  }

  // Prefetches in the newest table (where most keys are).
  // With more than one table, also the newest table's older word.
  void Prefetch(uint64_t hash) const {
    const int n = tables_.count();
    tables_.table(n - 1).Prefetch(hash);
    if (n > 1) tables_.table(n - 1).PrefetchOlder(hash);
  }
  void PrefetchForInsert(uint64_t hash) const {
    const int n = tables_.count();
    tables_.table(n - 1).PrefetchForInsert(hash);
    if (n > 1) tables_.table(n - 1).PrefetchOlder(hash);
  }
  void PrefetchVersion(uint64_t hash) const { tables_.newest().PrefetchVersion(hash); }

  int NumTables() const { return tables_.count(); }
  // Table i, for tests. REQUIRES: i < NumTables().
  const ColumnTable& TableForTest(int i) const { return tables_.table(i); }
  size_t bytes() const { return tables_.Sum(&ColumnTable::bytes); }
  // What the rep charges: the tables mapped rather than the Allocator's.
  size_t MappedBytes() const { return tables_.Sum(&ColumnTable::MappedBytesCharged); }
  uint64_t overflow_buckets() const { return tables_.Sum(&ColumnTable::overflow_buckets); }

 private:
  RowRegion& region_;
  concurrency::GrowingTables<ColumnTable, kMaxTables, RowRegion> tables_;
};

}  // namespace memrep::columnar
