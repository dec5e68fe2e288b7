// HashIndex: the sorted hash rep's point index, a growing set of HashTables
// (concurrency/generations.h), so that an empty memtable holds a few hundred
// bytes of buckets and a full one about a bucket per kBytesPerBucket bytes
// of rows, whatever RocksDB told the rep of its size.
//
//   tables:  T0 (64 buckets) ... Tn-1 (the newest, kGrowth times the one
//            before, at most max_buckets)
//   a key:   its versions in one group of one table: the table a writer
//            found the key's group in, else (a new key) the newest
//
// Insert looks for the key's group in the newest table, then in the older
// ones, unless the newest table's older words, which hold every older
// table's keys once the grower has set them (invariant 8), rule the key out
// (a new key costs a bucket and an older word, whatever the generations),
// and links the version there; a new key's group goes to the newest table.
// A lookup searches the tables newest first (stopping where the older words
// rule the key out) and stops at the first group it finds:
// every version of the key is in it, unless two writers linked the same new
// key into two tables at once, around a growth. Then the writer that linked
// into the older table marks the key's bucket in every newer one (the split
// bit), before its insert returns, and a lookup that finds the bit merges
// the key's groups of every table by sequence.
//
// Thread safety: Insert from many threads at once; lookups concurrently
// with them, taking no lock. Grow from any writer (one at a time; the
// others go on inserting into the tables there are).
// Invariants (the tables' own are HashTable's):
//  6. Writer W links a new group for key K into table t only after looking
//     for K's group in every table it saw (count_ loaded seq_cst, the
//     tables' filters and heads seq_cst), then loads count_ again (seq_cst)
//     and marks K's bucket in every table above t. If another writer V
//     linked K's group into a newer table u without seeing W's, V's look at
//     table t came before W's link in the seq_cst order; V's load of count_
//     saw u, and came before that look; so W's second load sees u too, and
//     W marks u. A lookup that starts after W's insert returned sees the mark.
//  7. A version is linked into a group only (never a new group) when the
//     writer found the group: that creates no second group.
//  8. Covering (Generations): once table u is covered, a key whose older
//     bits u lacks has no group in any table, for a thread that loaded the
//     covered flag before the older word. u's grower publishes u (count_,
//     seq_cst), reads the heads of every older table (seq_cst, Cover) and
//     walks their chains, sets each key's older bits in u, and stores the
//     flag (release). A writer W that links key K's group into an older
//     table t does so by a seq_cst CAS of t's head, then loads count_
//     (seq_cst), marks K in every table above t that it saw (split bit and
//     older bits), and loads count_ again until no new table appears. If
//     W's CAS came before the grower's load of that head in the seq_cst
//     order, the grower's walk met K; else the CAS, and W's loads of count_
//     after it, came after u was published, and W marked u. Either way u has
//     K's bits before the flag is set or before W's insert returns. A writer
//     that finds the bits looks in the older tables as before; one that
//     finds them unset links a new group, which is invariant 6's race with a
//     writer not yet returned.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "concurrency/growing_tables.h"
#include "sorted_hash/hash_table.h"

namespace memrep::sorted_hash {

class HashIndex {
 public:
  static constexpr int kMaxTables = 12;
  static constexpr uint64_t kFirstBuckets = 64;  // 512 bytes
  static constexpr uint64_t kGrowth = 8;
  static constexpr uint64_t kEntriesPerBucket = 4;

  // first_buckets: the first table's count; max_buckets: the most a table
  // has (the tables grow by kGrowth up to it); bytes_per_bucket: the rows a
  // bucket is for. A table is outgrown once the rows exceed its buckets
  // times bytes_per_bucket and the entries its buckets times
  // kEntriesPerBucket (so that a few big values grow no index).
  // REQUIRES: 0 < first_buckets <= max_buckets <= 2^32.
  HashIndex(const RowRegion* region, uint64_t first_buckets, uint64_t max_buckets,
            uint64_t bytes_per_bucket)
      : tables_(region, {first_buckets, max_buckets, bytes_per_bucket, kEntriesPerBucket, kGrowth},
                "hash table") {}
  HashIndex(const HashIndex&) = delete;
  HashIndex& operator=(const HashIndex&) = delete;

  // The first table, from `allocator`, which later tables come from too.
  // OutOfMemory if it cannot be had.
  Status Init(Allocator* allocator) { return tables_.Init(allocator); }

  // Links `node` (whose reference is `ref`; its user key hashes to `hash`).
  // Returns false, linking nothing, if a node of the same user key and
  // sequence is present.
  bool Insert(const format::KeyOrder& order, Node* node, RowRef ref, uint64_t hash);
  // Insert by a writer that loaded count_ as `tables` (Insert passes what it
  // loads; a test passes fewer than there are, as a writer delayed across a
  // growth would see). REQUIRES: 0 < tables <= NumTables().
  bool InsertSeeing(const format::KeyOrder& order, Node* node, RowRef ref, uint64_t hash,
                    int tables);

  // Calls fn(node) on the versions of internal_key's user key whose sequence
  // is at most internal_key's, newest first, until fn returns false.
  template <typename Fn>
  void ForEachVersion(const format::KeyOrder& order, std::string_view internal_key, uint64_t hash,
                      Fn&& fn) const;
  // Calls fn(node) on each node of another key that ForEachVersion of
  // user_key compares, in the tables it looks in, newest first, until fn
  // returns false (SortedHashRep::ProbedRows).
  template <typename Fn>
  void ForEachCompared(const format::KeyOrder& order, std::string_view user_key, uint64_t hash,
                       Fn&& fn) const;
  // Whether a node of internal_key's user key and sequence is present.
  bool Contains(const format::KeyOrder& order, std::string_view internal_key) const;

  // Adds a table if the rows (`row_bytes`, what the rep's region holds, and
  // entries(), how many) have outgrown the newest. Cheap when the bytes have
  // not: one relaxed load; entries() is called only then.
  template <typename Entries>
  void MaybeGrow(size_t row_bytes, Entries&& entries) {
    tables_.MaybeGrow(row_bytes, entries);
  }

  static uint64_t HashOf(std::string_view internal_key) {
    return util::Hash(format::UserKey(internal_key));
  }
  // For MultiGet: prefetches of the key's bucket, then of its chain's first
  // node, in the newest table (where most keys are).
  void PrefetchBucket(uint64_t hash) const {
    const HashTable& newest = tables_.newest();
    newest.PrefetchBucket(hash);
    newest.PrefetchOlder(hash);  // read for a key the newest table lacks
  }
  void PrefetchHead(uint64_t hash) const { tables_.newest().PrefetchHead(hash); }

  int NumTables() const { return tables_.count(); }
  // Table i, for tests. REQUIRES: i < NumTables().
  const HashTable& TableForTest(int i) const { return tables_.table(i); }
  // The buckets' bytes, of every table.
  size_t bytes() const { return tables_.Sum(&HashTable::bytes); }
  // The bytes of the tables mapped rather than taken from the Allocator
  // (the rep's MemoryUsage charges them).
  size_t MappedBytes() const { return tables_.Sum(&HashTable::MappedBytes); }

 private:
  // Whether a table below `tables` other than `found` holds a version of
  // user_key at `seq` (a split key's duplicate).
  bool InAnotherGroup(const format::KeyOrder& order, int tables, std::string_view user_key,
                      uint64_t seq, uint64_t hash, int found) const;
  // ForEachVersion over every table's group of the key, merged by sequence.
  template <typename Fn>
  void MergeVersions(const format::KeyOrder& order, std::string_view user_key, uint64_t seq,
                     uint64_t hash, int tables, Fn& fn) const;

  concurrency::GrowingTables<HashTable, kMaxTables, const RowRegion> tables_;
};

template <typename Fn>
void HashIndex::ForEachVersion(const format::KeyOrder& order, std::string_view internal_key,
                               uint64_t hash, Fn&& fn) const {
  const std::string_view user_key = format::UserKey(internal_key);
  const uint64_t seq = TagSequence(format::DecodeFixed64(internal_key.data() + user_key.size()));
  const int n = tables_.count();
  // Before the filter's load: invariant 8.
  const bool covered = tables_.covered(n - 1);
  for (int i = n - 1; i >= 0; --i) {
    const HashTable& table = tables_.table(i);
    uint32_t filter;
    const Node* group = table.FindGroup(order, user_key, hash, std::memory_order_acquire, &filter);
    if (group == nullptr) {
      // Ruled out of every older table by the older words: invariant 8.
      if (i == n - 1 && covered && !table.MayBeOlder(hash)) return;
      continue;
    }
    if ((filter & HashTable::kSplitBit) != 0 && i > 0) {
      MergeVersions(order, user_key, seq, hash, i + 1, fn);
      return;
    }
    uint64_t tag;
    for (const Node* node = table.SkipNewer(order, group, user_key, seq, &tag); node != nullptr;
         node = table.NextVersion(order, node, user_key, &tag)) {
      if (!fn(node)) return;
    }
    return;
  }
}

template <typename Fn>
void HashIndex::ForEachCompared(const format::KeyOrder& order, std::string_view user_key,
                                uint64_t hash, Fn&& fn) const {
  // The tables ForEachVersion looks in: the newest, older ones while none
  // has the key's group (unless the older words rule them out), and every
  // older one after a split group (MergeVersions).
  const int n = tables_.count();
  const bool covered = tables_.covered(n - 1);  // before the filter's load: invariant 8
  bool split = false;
  for (int i = n - 1; i >= 0; --i) {
    const HashTable& table = tables_.table(i);
    uint32_t filter;
    bool stopped = false;
    const Node* group = table.FindGroupSeeing(order, user_key, hash, &filter, fn, &stopped);
    if (stopped) return;
    if (group == nullptr) {
      if (!split && i == n - 1 && covered && !table.MayBeOlder(hash)) return;
      continue;
    }
    if (split) continue;
    if ((filter & HashTable::kSplitBit) == 0) return;
    split = true;
  }
}

template <typename Fn>
void HashIndex::MergeVersions(const format::KeyOrder& order, std::string_view user_key,
                              uint64_t seq, uint64_t hash, int tables, Fn& fn) const {
  // One cursor per table holding a group of the key: its next version.
  const Node* at[kMaxTables];
  uint64_t tags[kMaxTables];
  for (int i = 0; i < tables; ++i) {
    uint32_t filter;
    const Node* group =
        tables_.table(i).FindGroup(order, user_key, hash, std::memory_order_acquire, &filter);
    at[i] = group == nullptr ? nullptr
                             : tables_.table(i).SkipNewer(order, group, user_key, seq, &tags[i]);
  }
  for (;;) {
    int best = -1;
    for (int i = 0; i < tables; ++i) {
      if (at[i] != nullptr && (best < 0 || TagSequence(tags[i]) > TagSequence(tags[best]))) {
        best = i;
      }
    }
    if (best < 0 || !fn(at[best])) return;
    at[best] = tables_.table(best).NextVersion(order, at[best], user_key, &tags[best]);
  }
}

}  // namespace memrep::sorted_hash
