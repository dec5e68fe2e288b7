// The sorted hash rep's RocksDB factory: a Customizable whose options are
// SortedHashOptions, parsed and checked by memrep itself.
#include <rocksdb/comparator.h>
#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/options_type.h>

#include <algorithm>
#include <unordered_map>

#include "comparator_probe.h"
#include "memrep_rocksdb.h"
#include "memtable_rep_adapter.h"
#include "sorted_hash_factory.h"

namespace memrep::rocksdb_plugin {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

rdb::Status ToRocks(const Status& s) {
  return s.ok() ? rdb::Status::OK() : rdb::Status::InvalidArgument(s.message());
}

// Every option goes through SortedHashOptions::Set/Get on the whole struct,
// so RocksDB's strings get memrep's checks and messages.
rdb::OptionTypeInfo SortedHashOption() {
  return rdb::OptionTypeInfo(
      0, rdb::OptionType::kUnknown, rdb::OptionVerificationType::kNormal,
      rdb::OptionTypeFlags::kNone,
      [](const rdb::ConfigOptions&, const std::string& name, const std::string& value,
         void* addr) { return ToRocks(static_cast<SortedHashOptions*>(addr)->Set(name, value)); },
      [](const rdb::ConfigOptions&, const std::string& name, const void* addr,
         std::string* value) {
        return ToRocks(static_cast<const SortedHashOptions*>(addr)->Get(name, value));
      },
      [](const rdb::ConfigOptions&, const std::string& name, const void* a, const void* b,
         std::string* mismatch) {
        std::string va, vb;
        static_cast<const SortedHashOptions*>(a)->Get(name, &va);
        static_cast<const SortedHashOptions*>(b)->Get(name, &vb);
        if (va != vb) *mismatch = name;
        return va == vb;
      });
}

const std::unordered_map<std::string, rdb::OptionTypeInfo>& SortedHashTypeInfo() {
  static const auto* info = [] {
    auto* map = new std::unordered_map<std::string, rdb::OptionTypeInfo>();
    for (const std::string& name : SortedHashOptions::Names()) map->emplace(name, SortedHashOption());
    return map;
  }();
  return *info;
}

}  // namespace

SortedHashRepFactory::SortedHashRepFactory(const SortedHashOptions& options) : options_(options) {
  RegisterOptions("SortedHashOptions", &options_, &SortedHashTypeInfo());
}

rdb::Status SortedHashRepFactory::PrepareOptions(const rdb::ConfigOptions& config_options) {
  rdb::Status s = ToRocks(options_.Validate());
  return s.ok() ? MemTableRepFactory::PrepareOptions(config_options) : s;
}

rdb::Status SortedHashRepFactory::ConfigureOptions(
    const rdb::ConfigOptions& config_options,
    const std::unordered_map<std::string, std::string>& opts_map,
    std::unordered_map<std::string, std::string>* unused) {
  const auto& names = SortedHashOptions::Names();
  for (const auto& [name, value] : opts_map) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
      return rdb::Status::InvalidArgument("unknown option '" + name + "' for " + kClassName() +
                                          "; known options: " + known);
    }
  }
  return MemTableRepFactory::ConfigureOptions(config_options, opts_map, unused);
}

rdb::Status SortedHashRepFactory::ValidateOptions(const rdb::DBOptions& db_opts,
                                                  const rdb::ColumnFamilyOptions& cf_opts) const {
  const rdb::Comparator* cmp = cf_opts.comparator;
  if (cmp != nullptr && cmp->timestamp_size() > 0) {
    return rdb::Status::InvalidArgument(
        "memrep.SortedHash does not support user-defined timestamps (the comparator " +
        std::string(cmp->Name()) +
        " has a timestamp): its hash index finds keys by their bytes, timestamp included; use "
        "the skip_list memtable for this column family");
  }
  if (cmp != nullptr && cmp != rdb::BytewiseComparator() &&
      std::string(cmp->Name()) != rdb::BytewiseComparator()->Name()) {
    return rdb::Status::InvalidArgument(
        "memrep.SortedHash needs the bytewise comparator (leveldb.BytewiseComparator), but this "
        "column family uses " + std::string(cmp->Name()) +
        "; use the skip_list memtable for it");
  }
  rdb::Status s = ToRocks(options_.Validate());
  if (!s.ok()) return s;
  if (cf_opts.write_buffer_size > SortedHashOptions::kMaxWriteBufferSize) {
    return rdb::Status::InvalidArgument(
        "memrep.SortedHash holds at most 32 GiB of entries per memtable, so it takes a "
        "write_buffer_size of at most " + std::to_string(SortedHashOptions::kMaxWriteBufferSize) +
        " (16 GiB); this column family has " + std::to_string(cf_opts.write_buffer_size));
  }
  // Size the hash index from the column family's write buffer (the largest,
  // if one factory serves several).
  uint64_t seen = observed_write_buffer_size_.load(std::memory_order_relaxed);
  while (cf_opts.write_buffer_size > seen &&
         !observed_write_buffer_size_.compare_exchange_weak(seen, cf_opts.write_buffer_size,
                                                            std::memory_order_relaxed)) {
  }
  return MemTableRepFactory::ValidateOptions(db_opts, cf_opts);
}

rdb::MemTableRep* SortedHashRepFactory::CreateMemTableRep(
    const rdb::MemTableRep::KeyComparator& cmp, rdb::Allocator* arena,
    const rdb::SliceTransform* transform, rdb::Logger* logger) {
  if (!IsBytewiseOrder(cmp)) {
    // Reached only if the options were not validated (a CF created without
    // RocksDB checking them): never serve a wrong order, fall back instead.
    rdb::Log(rdb::InfoLogLevel::ERROR_LEVEL, logger,
             "memrep.SortedHash: the key comparator is not bytewise; this memtable uses "
             "RocksDB's skip list instead");
    return rdb::SkipListFactory().CreateMemTableRep(cmp, arena, transform, logger);
  }
  SortedHashOptions options = options_;
  if (options.write_buffer_size == 0) {
    options.write_buffer_size = observed_write_buffer_size_.load(std::memory_order_relaxed);
  }
  auto allocator = std::make_unique<ArenaAllocator>(arena);
  std::unique_ptr<Rep> rep = NewSortedHashRep(options, RepContext{allocator.get(), nullptr});
  return new MemTableRepAdapter(arena, std::move(allocator), std::move(rep));
}

std::unique_ptr<rdb::MemTableRepFactory> NewSortedHashRepFactory(const SortedHashOptions& options) {
  return std::make_unique<SortedHashRepFactory>(options);
}

}  // namespace memrep::rocksdb_plugin
