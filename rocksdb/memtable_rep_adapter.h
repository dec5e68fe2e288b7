// MemTableRepAdapter: any memrep rep as a rocksdb::MemTableRep. Written once
// for every rep; the factory only decides which rep to build.
//
// RocksDB's write path cannot fail: Allocate returns memory and Insert
// returns void (InsertKey's false means "duplicate", nothing else). So when
// the rep cannot take a row (its region is exhausted, or its allocator
// failed) the adapter keeps the row in OverflowRows, in RocksDB's arena, and
// from then on reads merge the two; and ApproximateMemoryUsage reports the
// memtable as full (kFullSignalBytes more than it holds) as soon as the
// rep is NearlyFull or anything overflowed, so RocksDB switches memtables
// while the rep still has room for the writes in flight.
//
// No exception of memrep's crosses into RocksDB. The write path has its
// fallback; the overflow's rows come from RocksDB's own arena, which fails
// as it does for RocksDB's own reps. Where memory for memrep's bookkeeping
// cannot be had (an iterator sorting the newest rows, the overflow's set),
// there is no way to report it to RocksDB and no correct answer to give: it
// prints why and aborts, as RocksDB does when its own arena fails.
#pragma once

#include <rocksdb/memtablerep.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "memrep/rep.h"
#include "overflow_rows.h"
#include "rocksdb_compat.h"

namespace memrep::rocksdb_plugin {

// memrep's Allocator over the memtable's arena: rows are charged to the
// memtable (and its WriteBufferManager) exactly as the skip list's are.
class ArenaAllocator final : public memrep::Allocator {
 public:
  explicit ArenaAllocator(ROCKSDB_NAMESPACE::Allocator* arena) : arena_(arena) {}
  char* AllocateAligned(size_t bytes) noexcept override;

 private:
  ROCKSDB_NAMESPACE::Allocator* const arena_;
};

class MemTableRepAdapter final : public ROCKSDB_NAMESPACE::MemTableRep {
 public:
  using KeyHandle = ROCKSDB_NAMESPACE::KeyHandle;

  // `allocator` must be the one `rep` was built on, `order` (nullptr when
  // it is one of memrep's own) its comparator; `cmp` the memtable's.
  MemTableRepAdapter(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
                     ROCKSDB_NAMESPACE::Allocator* arena, std::unique_ptr<ArenaAllocator> allocator,
                     std::unique_ptr<UserKeyComparator> order, std::unique_ptr<Rep> rep,
                     const RepTraits& traits);
  // What ApproximateMemoryUsage adds once the rep is nearly full: more than
  // any write buffer RocksDB compares it with.
  static constexpr size_t kFullSignalBytes = size_t{1} << 40;
  ~MemTableRepAdapter() override;

  KeyHandle Allocate(const size_t len, char** buf) override;

  // Insert* without "Key" may not meet duplicates (RocksDB's REQUIRES); the
  // Insert*Key* forms report them. Hints are accepted and ignored.
  void Insert(KeyHandle handle) override { (void)InsertRow(handle, false); }
  bool InsertKey(KeyHandle handle) override { return InsertRow(handle, false); }
  void InsertWithHint(KeyHandle handle, void**) override { (void)InsertRow(handle, false); }
  bool InsertKeyWithHint(KeyHandle handle, void**) override { return InsertRow(handle, false); }
  void InsertConcurrently(KeyHandle handle) override { (void)InsertRow(handle, true); }
  bool InsertKeyConcurrently(KeyHandle handle) override { return InsertRow(handle, true); }
  void InsertWithHintConcurrently(KeyHandle handle, void**) override {
    (void)InsertRow(handle, true);
  }
  bool InsertKeyWithHintConcurrently(KeyHandle handle, void**) override {
    return InsertRow(handle, true);
  }

  bool Contains(const char* memtable_key) const override;
  void MarkReadOnly() override { rep_->Freeze(); }
  void Get(const ROCKSDB_NAMESPACE::LookupKey& key, void* arg,
           bool (*callback)(void* arg, const char* entry)) override;
  // RocksDB's paranoid memory checks (rocksdb_compat.h): Get, with the rows
  // it hands on checked (Corruption if one fails).
#if MEMREP_ROCKSDB_HAS_KEY_VALIDATION
  ROCKSDB_NAMESPACE::Status GetAndValidate(const ROCKSDB_NAMESPACE::LookupKey& key, void* arg,
                                           bool (*callback)(void* arg, const char* entry),
                                           bool allow_data_in_errors, bool check_order,
                                           const KeyCheck& check_key) override;
#elif MEMREP_ROCKSDB_HAS_VALIDATION
  ROCKSDB_NAMESPACE::Status GetAndValidate(const ROCKSDB_NAMESPACE::LookupKey& key, void* arg,
                                           bool (*callback)(void* arg, const char* entry),
                                           bool allow_data_in_errors) override;
#endif
#if MEMREP_ROCKSDB_HAS_REP_MULTIGET
  // Many sorted memtable keys, looked up by the rep's own batch lookup
  // (Rep::MultiGetRows), each row checked as GetAndValidate checks it where
  // asked.
  ROCKSDB_NAMESPACE::Status MultiGet(size_t num_keys, const char* const* keys, void** callback_args,
                                     bool (*callback)(void* arg, const char* entry),
                                     bool allow_data_in_errors, bool check_order,
                                     const KeyCheck& check_key) override;
#endif
  uint64_t ApproximateNumEntries(const ROCKSDB_NAMESPACE::Slice& start_ikey,
                                 const ROCKSDB_NAMESPACE::Slice& end_ikey) override;
  void UniqueRandomSample(const uint64_t num_entries, const uint64_t target_sample_size,
                          std::unordered_set<const char*>* entries) override;
  size_t ApproximateMemoryUsage() override;
  Iterator* GetIterator(ROCKSDB_NAMESPACE::Arena* arena) override;

  // For tests: rows kept in the overflow.
  size_t OverflowCount() const;

 private:
  class MergedIterator;
  bool InsertRow(KeyHandle handle, bool concurrent);
  void GetRows(const ROCKSDB_NAMESPACE::Slice& internal_key, void* arg,
               bool (*callback)(void* arg, const char* entry));
  // What a validating point read checks of each row it hands on.
  struct RowChecks {
    const char* step;  // the read, for messages: "Get", "MultiGet"
    bool allow_data_in_errors;
    bool check_order;           // at or after the lookup key, after the row before
    const KeyCheck* check_key;  // RocksDB's check of a row; nullptr: none
  };
  // OK, or why `row`, handed on after `last` (nullptr: the first) for the
  // lookup key `target`, fails `checks` (Corruption).
  ROCKSDB_NAMESPACE::Status CheckRow(const char* row, const ROCKSDB_NAMESPACE::Slice& target,
                                     const char* last, const RowChecks& checks) const;
  // OK, or the first failure of checks.check_key (if any) among the rows a
  // hash probe of the key compares and rejects (Rep::ProbedRows), which a
  // search would land on and check: so that a row whose key bytes changed
  // is Corruption, as with the skip list, and not a silent miss.
  ROCKSDB_NAMESPACE::Status CheckProbedRows(const ROCKSDB_NAMESPACE::Slice& internal_key,
                                            const RowChecks& checks) const;
  // GetRows, each row checked (CheckRow) and the probed rows too
  // (CheckProbedRows); the first failure stops the read and is returned.
  ROCKSDB_NAMESPACE::Status GetChecked(const ROCKSDB_NAMESPACE::Slice& internal_key, void* arg,
                                       bool (*callback)(void* arg, const char* entry),
                                       const RowChecks& checks);
  // The overflow, created on first use.
  OverflowRows& Overflow();
  // The overflow if anything was ever put there, else nullptr. O(1).
  OverflowRows* OverflowIfUsed() const {
    return overflowed_.load(std::memory_order_acquire) ? overflow_.get() : nullptr;
  }

  const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp_;
  // memrep's view of the arena (MemTableRep::allocator_ is RocksDB's).
  const std::unique_ptr<ArenaAllocator> arena_allocator_;
  const std::unique_ptr<UserKeyComparator> order_;  // outlives rep_
  const std::unique_ptr<Rep> rep_;
  const RepTraits traits_;
  std::once_flag overflow_once_;
  std::unique_ptr<OverflowRows> overflow_;
  // Set (release) once overflow_ exists and a row was allocated there.
  std::atomic<bool> overflowed_{false};
};

}  // namespace memrep::rocksdb_plugin
