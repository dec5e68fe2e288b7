// RepFactory: the one rocksdb::MemTableRepFactory of the plugin, for every
// rep of memrep's registry. A Customizable whose options are the rep's
// option table, so RocksDB's strings get memrep's parsing, checks and
// messages, and OPTIONS files round-trip.
#pragma once

#include <rocksdb/memtablerep.h>

#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>

#include "memrep/registry.h"

namespace memrep::rocksdb_plugin {

class RepFactory final : public ROCKSDB_NAMESPACE::MemTableRepFactory {
 public:
  explicit RepFactory(const RepSpec& spec);

  const char* Name() const override { return spec_.name().c_str(); }
  const char* NickName() const override { return nickname_.c_str(); }

  // Refuses options out of range (InvalidArgument, with memrep's message),
  // and options the RocksDB face cannot serve (NotSupported).
  ROCKSDB_NAMESPACE::Status PrepareOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options) override;
  // Refuses nothing of a column family (see rep_factory.cc for why).
  ROCKSDB_NAMESPACE::Status ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_opts,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_opts) const override;

  using MemTableRepFactory::CreateMemTableRep;
  ROCKSDB_NAMESPACE::MemTableRep* CreateMemTableRep(
      const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp, ROCKSDB_NAMESPACE::Allocator* arena,
      const ROCKSDB_NAMESPACE::SliceTransform* transform,
      ROCKSDB_NAMESPACE::Logger* logger) override;

  bool IsInsertConcurrentlySupported() const override { return spec_.traits().concurrent_insert; }
  bool CanHandleDuplicatedKey() const override { return spec_.traits().detects_duplicates(); }

  const RepSpec& spec() const { return spec_; }
  // The memtables this factory made, one after another (memrep.Auto's
  // history and decisions).
  const RepLineage& lineage() const { return *lineage_; }
  // The name under which the lineage is registered as an options struct,
  // so that GetOptions<RepLineage> finds it without RTTI.
  static constexpr const char* kLineageOptionsName = "memrep.Lineage";

 protected:
  // Refuses unknown option names with InvalidArgument (RocksDB alone would
  // answer NotFound), listing the known ones, unless the ConfigOptions say
  // to ignore unknown options.
  ROCKSDB_NAMESPACE::Status ConfigureOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& opts_map,
      std::unordered_map<std::string, std::string>* unused) override;

 private:
  // Logs what the rep decided for the memtable just made, if it decides
  // anything per memtable (Registration::describe_decision): a line a memtable.
  void LogDecision(ROCKSDB_NAMESPACE::Logger* logger) const;

  RepSpec spec_;
  const std::string nickname_;
  // Made in the constructor, where RepLineage is complete (memrep/auto.h);
  // this header knows it only by name (memrep/rep.h).
  const std::shared_ptr<RepLineage> lineage_;
};

}  // namespace memrep::rocksdb_plugin
