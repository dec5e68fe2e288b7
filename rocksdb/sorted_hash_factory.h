// SortedHashRepFactory: builds memrep's sorted hash rep for RocksDB.
#pragma once

#include <rocksdb/memtablerep.h>

#include <atomic>
#include <string>
#include <unordered_map>

#include "memrep/sorted_hash.h"

namespace memrep::rocksdb_plugin {

class SortedHashRepFactory final : public ROCKSDB_NAMESPACE::MemTableRepFactory {
 public:
  static const char* kClassName() { return "memrep.SortedHash"; }
  static const char* kNickName() { return "sorted_hash"; }

  explicit SortedHashRepFactory(const SortedHashOptions& options = SortedHashOptions());

  const char* Name() const override { return kClassName(); }
  const char* NickName() const override { return kNickName(); }

  // Refuses options out of range (InvalidArgument, with memrep's message).
  ROCKSDB_NAMESPACE::Status PrepareOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options) override;
  // Refuses comparators other than bytewise, and user-defined timestamps.
  ROCKSDB_NAMESPACE::Status ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_opts,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_opts) const override;

  using MemTableRepFactory::CreateMemTableRep;
  ROCKSDB_NAMESPACE::MemTableRep* CreateMemTableRep(
      const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
      ROCKSDB_NAMESPACE::Allocator* arena, const ROCKSDB_NAMESPACE::SliceTransform* transform,
      ROCKSDB_NAMESPACE::Logger* logger) override;

  bool IsInsertConcurrentlySupported() const override { return true; }
  bool CanHandleDuplicatedKey() const override { return true; }

  const SortedHashOptions& options() const { return options_; }

 protected:
  // Refuses unknown option names with InvalidArgument (RocksDB alone would
  // answer NotFound), listing the known ones.
  ROCKSDB_NAMESPACE::Status ConfigureOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& opts_map,
      std::unordered_map<std::string, std::string>* unused) override;

 private:
  SortedHashOptions options_;
  // With write_buffer_size=0 (auto), the largest write_buffer_size of the
  // column families this factory was validated for; 0 until then.
  mutable std::atomic<uint64_t> observed_write_buffer_size_{0};
};

}  // namespace memrep::rocksdb_plugin
