// RepFactory: the one rocksdb::MemTableRepFactory of the plugin, for every
// rep of memrep's registry. A Customizable whose options are the rep's
// option table, so RocksDB's strings get memrep's parsing, checks and
// messages, and OPTIONS files round-trip.
#pragma once

#include <rocksdb/memtablerep.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "concurrency/mutex.h"
#include "memrep/registry.h"

namespace memrep::rocksdb_plugin {

// The lineages of one factory, one per column family id (made at its first
// memtable): a memtable's history is that of its own column family, whose
// workload may differ from the others' that share the factory.
class LineageSet {
 public:
  // `first`: the default column family's (id 0).
  explicit LineageSet(std::shared_ptr<RepLineage> first);
  RepLineage* For(uint32_t column_family_id) EXCLUDES(mu_);
  // nullptr if the column family has made no memtable.
  std::shared_ptr<RepLineage> Find(uint32_t column_family_id) const EXCLUDES(mu_);

 private:
  mutable concurrency::Mutex mu_;
  std::map<uint32_t, std::shared_ptr<RepLineage>> lineages_ GUARDED_BY(mu_);
};

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

  // Without a column family id: the default column family's (id 0).
  ROCKSDB_NAMESPACE::MemTableRep* CreateMemTableRep(
      const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp, ROCKSDB_NAMESPACE::Allocator* arena,
      const ROCKSDB_NAMESPACE::SliceTransform* transform,
      ROCKSDB_NAMESPACE::Logger* logger) override;
  ROCKSDB_NAMESPACE::MemTableRep* CreateMemTableRep(
      const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp, ROCKSDB_NAMESPACE::Allocator* arena,
      const ROCKSDB_NAMESPACE::SliceTransform* transform, ROCKSDB_NAMESPACE::Logger* logger,
      uint32_t column_family_id) override;

  bool IsInsertConcurrentlySupported() const override { return spec_.traits().concurrent_insert; }
  bool CanHandleDuplicatedKey() const override { return spec_.traits().detects_duplicates(); }

  const RepSpec& spec() const { return spec_; }
  // The memtables this factory made for the default column family, one
  // after another (memrep.Auto's history and decisions).
  const RepLineage& lineage() const { return *lineage_; }
  // The names under which the default column family's lineage and the set
  // of all are registered as options structs, so that GetOptions finds them
  // without RTTI.
  static constexpr const char* kLineageOptionsName = "memrep.Lineage";
  static constexpr const char* kLineageSetOptionsName = "memrep.Lineages";

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
  void LogDecision(ROCKSDB_NAMESPACE::Logger* logger, const RepLineage& lineage) const;

  RepSpec spec_;
  const std::string nickname_;
  // Made in the constructor, where RepLineage is complete (memrep/auto.h);
  // this header knows it only by name (memrep/rep.h).
  const std::shared_ptr<RepLineage> lineage_;
  LineageSet lineages_;  // lineage_ for id 0
};

}  // namespace memrep::rocksdb_plugin
