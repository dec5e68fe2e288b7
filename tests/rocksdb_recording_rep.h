// RecordingFactory: any MemTableRepFactory (RocksDB's skip list, or memrep's
// factory) whose reps are served by it unchanged, but which records where
// RocksDB wrote each row: the buffer and length every Allocate handed out.
// A test can then change a stored row's bytes in place, as memory corruption
// would, and see what each rep's reads make of it.
#pragma once

#include <rocksdb/memtablerep.h>
#include <rocksdb/options.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "rocksdb_compat.h"

namespace memrep::testing {

// The rows of every memtable a RecordingFactory made, in allocation order.
struct RowLog {
  std::mutex mu;
  std::vector<std::pair<char*, size_t>> rows;
};

// Every call goes to `inner`; Allocate's buffers are logged.
class RecordingRep final : public ROCKSDB_NAMESPACE::MemTableRep {
 public:
  using KeyHandle = ROCKSDB_NAMESPACE::KeyHandle;
  using LookupKey = ROCKSDB_NAMESPACE::LookupKey;
  using Slice = ROCKSDB_NAMESPACE::Slice;
  using Status = ROCKSDB_NAMESPACE::Status;
  using Callback = bool (*)(void* arg, const char* entry);

  RecordingRep(ROCKSDB_NAMESPACE::MemTableRep* inner, ROCKSDB_NAMESPACE::Allocator* arena,
               std::shared_ptr<RowLog> log)
      : MemTableRep(arena), inner_(inner), log_(std::move(log)) {}

  KeyHandle Allocate(const size_t len, char** buf) override {
    KeyHandle handle = inner_->Allocate(len, buf);
    std::lock_guard<std::mutex> lock(log_->mu);
    log_->rows.emplace_back(*buf, len);
    return handle;
  }
  void Insert(KeyHandle h) override { inner_->Insert(h); }
  bool InsertKey(KeyHandle h) override { return inner_->InsertKey(h); }
  void InsertWithHint(KeyHandle h, void** hint) override { inner_->InsertWithHint(h, hint); }
  bool InsertKeyWithHint(KeyHandle h, void** hint) override {
    return inner_->InsertKeyWithHint(h, hint);
  }
  void InsertWithHintConcurrently(KeyHandle h, void** hint) override {
    inner_->InsertWithHintConcurrently(h, hint);
  }
  bool InsertKeyWithHintConcurrently(KeyHandle h, void** hint) override {
    return inner_->InsertKeyWithHintConcurrently(h, hint);
  }
  void InsertConcurrently(KeyHandle h) override { inner_->InsertConcurrently(h); }
  bool InsertKeyConcurrently(KeyHandle h) override { return inner_->InsertKeyConcurrently(h); }
#if MEMREP_ROCKSDB_AT_LEAST(10, 4)
  void BatchPostProcess() override { inner_->BatchPostProcess(); }
#endif
  bool Contains(const char* key) const override { return inner_->Contains(key); }
  void MarkReadOnly() override { inner_->MarkReadOnly(); }
  void MarkFlushed() override { inner_->MarkFlushed(); }
  void Get(const LookupKey& k, void* arg, Callback callback) override {
    inner_->Get(k, arg, callback);
  }
#if MEMREP_ROCKSDB_HAS_KEY_VALIDATION
  Status GetAndValidate(const LookupKey& k, void* arg, Callback callback, bool allow_data,
                        bool check_order,
                        const memrep::rocksdb_plugin::KeyCheck& check_key) override {
    return inner_->GetAndValidate(k, arg, callback, allow_data, check_order, check_key);
  }
#elif MEMREP_ROCKSDB_HAS_VALIDATION
  Status GetAndValidate(const LookupKey& k, void* arg, Callback callback,
                        bool allow_data) override {
    return inner_->GetAndValidate(k, arg, callback, allow_data);
  }
#endif
#if MEMREP_ROCKSDB_HAS_REP_MULTIGET
  Status MultiGet(size_t num_keys, const char* const* keys, void** args, Callback callback,
                  bool allow_data, bool check_order,
                  const memrep::rocksdb_plugin::KeyCheck& check_key) override {
    return inner_->MultiGet(num_keys, keys, args, callback, allow_data, check_order, check_key);
  }
#endif
  uint64_t ApproximateNumEntries(const Slice& start, const Slice& end) override {
    return inner_->ApproximateNumEntries(start, end);
  }
  void UniqueRandomSample(const uint64_t num_entries, const uint64_t target,
                          std::unordered_set<const char*>* entries) override {
    inner_->UniqueRandomSample(num_entries, target, entries);
  }
  size_t ApproximateMemoryUsage() override { return inner_->ApproximateMemoryUsage(); }
  Iterator* GetIterator(ROCKSDB_NAMESPACE::Arena* arena) override {
    return inner_->GetIterator(arena);
  }
  Iterator* GetDynamicPrefixIterator(ROCKSDB_NAMESPACE::Arena* arena) override {
    return inner_->GetDynamicPrefixIterator(arena);
  }
  bool IsMergeOperatorSupported() const override { return inner_->IsMergeOperatorSupported(); }
  bool IsSnapshotSupported() const override { return inner_->IsSnapshotSupported(); }

 private:
  const std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep> inner_;
  const std::shared_ptr<RowLog> log_;
};

class RecordingFactory final : public ROCKSDB_NAMESPACE::MemTableRepFactory {
 public:
  explicit RecordingFactory(std::shared_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> inner)
      : inner_(std::move(inner)), log_(std::make_shared<RowLog>()) {}

  const char* Name() const override { return "memrep.test.Recording"; }
  // memrep's factory sizes its reps from the write buffer it validates.
  ROCKSDB_NAMESPACE::Status ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_opts,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_opts) const override {
    return inner_->ValidateOptions(db_opts, cf_opts);
  }
  using MemTableRepFactory::CreateMemTableRep;
  ROCKSDB_NAMESPACE::MemTableRep* CreateMemTableRep(
      const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp, ROCKSDB_NAMESPACE::Allocator* arena,
      const ROCKSDB_NAMESPACE::SliceTransform* transform,
      ROCKSDB_NAMESPACE::Logger* logger) override {
    return CreateMemTableRep(cmp, arena, transform, logger, 0);
  }
  ROCKSDB_NAMESPACE::MemTableRep* CreateMemTableRep(
      const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp, ROCKSDB_NAMESPACE::Allocator* arena,
      const ROCKSDB_NAMESPACE::SliceTransform* transform, ROCKSDB_NAMESPACE::Logger* logger,
      uint32_t column_family_id) override {
    return new RecordingRep(
        inner_->CreateMemTableRep(cmp, arena, transform, logger, column_family_id), arena, log_);
  }
  bool IsInsertConcurrentlySupported() const override {
    return inner_->IsInsertConcurrentlySupported();
  }
  bool CanHandleDuplicatedKey() const override { return inner_->CanHandleDuplicatedKey(); }

  RowLog& log() const { return *log_; }

 private:
  const std::shared_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> inner_;
  const std::shared_ptr<RowLog> log_;
};

}  // namespace memrep::testing
