// MemTableRepAdapter: any memrep rep as a rocksdb::MemTableRep. Written once
// for every rep; a rep's factory only decides which memrep rep to build.
#pragma once

#include <rocksdb/memtablerep.h>

#include <memory>

#include "memrep/rep.h"
#include "rocksdb_abi.h"

namespace memrep::rocksdb_plugin {

// memrep's Allocator over the memtable's arena: entries are charged to the
// memtable (and its WriteBufferManager) exactly as the skip list's are.
class ArenaAllocator final : public memrep::Allocator {
 public:
  explicit ArenaAllocator(ROCKSDB_NAMESPACE::Allocator* arena) : arena_(arena) {}
  char* AllocateAligned(size_t bytes) override { return arena_->AllocateAligned(bytes); }

 private:
  ROCKSDB_NAMESPACE::Allocator* const arena_;
};

class MemTableRepAdapter final : public ROCKSDB_NAMESPACE::MemTableRep {
 public:
  using KeyHandle = ROCKSDB_NAMESPACE::KeyHandle;

  // `allocator` must be the one `rep` was built on.
  MemTableRepAdapter(ROCKSDB_NAMESPACE::Allocator* arena,
                     std::unique_ptr<ArenaAllocator> allocator, std::unique_ptr<Rep> rep);
  ~MemTableRepAdapter() override;

  KeyHandle Allocate(const size_t len, char** buf) override { return rep_->Allocate(len, buf); }

  // Insert* without "Key" may not meet duplicates (RocksDB's REQUIRES); the
  // Insert*Key* forms report them. Hints are accepted and ignored: the hash
  // index finds the place of a key without one.
  void Insert(KeyHandle handle) override { rep_->Insert(handle); }
  bool InsertKey(KeyHandle handle) override { return rep_->Insert(handle); }
  void InsertWithHint(KeyHandle handle, void**) override { rep_->Insert(handle); }
  bool InsertKeyWithHint(KeyHandle handle, void**) override { return rep_->Insert(handle); }
  void InsertConcurrently(KeyHandle handle) override { rep_->InsertConcurrently(handle); }
  bool InsertKeyConcurrently(KeyHandle handle) override {
    return rep_->InsertConcurrently(handle);
  }
  void InsertWithHintConcurrently(KeyHandle handle, void**) override {
    rep_->InsertConcurrently(handle);
  }
  bool InsertKeyWithHintConcurrently(KeyHandle handle, void**) override {
    return rep_->InsertConcurrently(handle);
  }

  bool Contains(const char* memtable_key) const override;
  void MarkReadOnly() override { rep_->Freeze(); }
  void Get(const ROCKSDB_NAMESPACE::LookupKey& key, void* arg,
           bool (*callback)(void* arg, const char* entry)) override;
  uint64_t ApproximateNumEntries(const ROCKSDB_NAMESPACE::Slice& start_ikey,
                                 const ROCKSDB_NAMESPACE::Slice& end_ikey) override;
  void UniqueRandomSample(const uint64_t num_entries, const uint64_t target_sample_size,
                          std::unordered_set<const char*>* entries) override;
  size_t ApproximateMemoryUsage() override { return rep_->MemoryUsage(); }
  Iterator* GetIterator(ROCKSDB_NAMESPACE::Arena* arena) override;

 private:
  const std::unique_ptr<ArenaAllocator> allocator_;
  const std::unique_ptr<Rep> rep_;
};

}  // namespace memrep::rocksdb_plugin
