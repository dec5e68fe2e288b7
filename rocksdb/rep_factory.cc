#include "rep_factory.h"

#include <rocksdb/comparator.h>
#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/options_type.h>

#include <map>
#include <memory>

#include "concurrency/mutex.h"
#include "memrep/auto.h"
#include "memrep/rocksdb.h"
#include "memtable_rep_adapter.h"
#include "registry/registry.h"
#include "user_comparator.h"

namespace memrep::rocksdb_plugin {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

rdb::Status ToRocks(const Status& s) {
  switch (s.code()) {
    case Status::Code::kOk:
      return rdb::Status::OK();
    case Status::Code::kNotFound:
      return rdb::Status::NotFound(s.message());
    case Status::Code::kNotSupported:
      return rdb::Status::NotSupported(s.message());
    case Status::Code::kIOError:
      return rdb::Status::IOError(s.message());
    case Status::Code::kCorruption:
      return rdb::Status::Corruption(s.message());
    case Status::Code::kOutOfMemory:
      return rdb::Status::MemoryLimit(s.message());
    default:
      return rdb::Status::InvalidArgument(s.message());
  }
}

// Every option goes through RepSpec::Set/Get on the whole spec, so RocksDB's
// strings get memrep's checks and messages.
rdb::OptionTypeInfo OptionOfSpec() {
  return rdb::OptionTypeInfo(
      0, rdb::OptionType::kUnknown, rdb::OptionVerificationType::kNormal,
      rdb::OptionTypeFlags::kNone,
      [](const rdb::ConfigOptions&, const std::string& name, const std::string& value, void* addr) {
        return ToRocks(static_cast<RepSpec*>(addr)->Set(name, value));
      },
      [](const rdb::ConfigOptions&, const std::string& name, const void* addr, std::string* value) {
        return ToRocks(static_cast<const RepSpec*>(addr)->Get(name, value));
      },
      [](const rdb::ConfigOptions&, const std::string& name, const void* a, const void* b,
         std::string* mismatch) {
        std::string va, vb;
        (void)static_cast<const RepSpec*>(a)->Get(name, &va);
        (void)static_cast<const RepSpec*>(b)->Get(name, &vb);
        if (va != vb) *mismatch = name;
        return va == vb;
      });
}

// The option map of a rep, built once per rep and kept for the process
// (RocksDB keeps a pointer to it in each factory).
const std::unordered_map<std::string, rdb::OptionTypeInfo>& TypeInfoOf(const RepSpec& spec) {
  static concurrency::Mutex mu;
  static auto* maps =
      new std::map<std::string,
                   std::unique_ptr<std::unordered_map<std::string, rdb::OptionTypeInfo>>>();
  concurrency::MutexLock lock(&mu);
  auto& map = (*maps)[spec.name()];
  if (map == nullptr) {
    map = std::make_unique<std::unordered_map<std::string, rdb::OptionTypeInfo>>();
    for (const std::string& name : spec.OptionNames()) map->emplace(name, OptionOfSpec());
  }
  return *map;
}

// Options in range, and none that only the standalone face takes: inside
// RocksDB a rep always serves rows (a file-backed trie cannot). Checked
// when a factory is made, whichever way it then reaches a column family.
rdb::Status CheckForRocksDb(const RepSpec& spec) {
  rdb::Status s = ToRocks(spec.Validate());
  if (!s.ok()) return s;
  const memrep::Status face = spec.CheckRowsFace();
  if (face.ok()) return rdb::Status::OK();
  return face.IsNotSupported() ? rdb::Status::NotSupported(face.message())
                               : rdb::Status::InvalidArgument(face.message());
}

}  // namespace

LineageSet::LineageSet(std::shared_ptr<RepLineage> first) { lineages_[0] = std::move(first); }

RepLineage* LineageSet::For(uint32_t column_family_id) {
  concurrency::MutexLock lock(&mu_);
  std::shared_ptr<RepLineage>& lineage = lineages_[column_family_id];
  if (lineage == nullptr) lineage = std::make_shared<RepLineage>(column_family_id);
  return lineage.get();
}

std::shared_ptr<RepLineage> LineageSet::Find(uint32_t column_family_id) const {
  concurrency::MutexLock lock(&mu_);
  const auto it = lineages_.find(column_family_id);
  return it == lineages_.end() ? nullptr : it->second;
}

RepFactory::RepFactory(const RepSpec& spec)
    : spec_(spec),
      nickname_(spec.Nickname()),
      lineage_(std::make_shared<RepLineage>(0)),
      lineages_(lineage_) {
  RegisterOptions(spec_.name(), &spec_, &TypeInfoOf(spec_));
  // No options of their own: registered only to be found (GetAutoCounters).
  static const auto* const kNoOptions = new std::unordered_map<std::string, rdb::OptionTypeInfo>();
  RegisterOptions(kLineageOptionsName, lineage_.get(), kNoOptions);
  RegisterOptions(kLineageSetOptionsName, &lineages_, kNoOptions);
}

rdb::Status RepFactory::PrepareOptions(const rdb::ConfigOptions& config_options) {
  rdb::Status s = CheckForRocksDb(spec_);
  return s.ok() ? MemTableRepFactory::PrepareOptions(config_options) : s;
}

rdb::Status RepFactory::ConfigureOptions(
    const rdb::ConfigOptions& config_options,
    const std::unordered_map<std::string, std::string>& opts_map,
    std::unordered_map<std::string, std::string>* unused) {
  // An OPTIONS file written by a newer memrep may name an option this one
  // does not know: the caller decides (ignore_unknown_options).
  // The rep's option table says which names it knows (its message lists them).
  for (const auto& [name, value] : opts_map) {
    if (config_options.ignore_unknown_options) break;
    std::string current;
    if (const Status s = spec_.Get(name, &current); !s.ok()) return ToRocks(s);
  }
  return MemTableRepFactory::ConfigureOptions(config_options, opts_map, unused);
}

rdb::Status RepFactory::ValidateOptions(const rdb::DBOptions& db_opts,
                                        const rdb::ColumnFamilyOptions& cf_opts) const {
  // Nothing of the column family is refused here. RocksDB calls this when a
  // database opens but not when a column family is created at run time or its
  // options change, so what this refused, a database could come to hold, and
  // then not open. Instead every memtable is made for what CreateMemTableRep
  // is given: the reps grow their indexes from small (whatever the write
  // buffer), a rep nearing its own limits asks RocksDB to switch memtables,
  // and a comparator a rep cannot serve gets RocksDB's skip list, with a LOG
  // line (docs/rocksdb.md, "Column families, comparators and memory").
  return MemTableRepFactory::ValidateOptions(db_opts, cf_opts);
}

rdb::MemTableRep* RepFactory::CreateMemTableRep(const rdb::MemTableRep::KeyComparator& cmp,
                                                rdb::Allocator* arena,
                                                const rdb::SliceTransform* transform,
                                                rdb::Logger* logger) {
  return CreateMemTableRep(cmp, arena, transform, logger, 0);
}

rdb::MemTableRep* RepFactory::CreateMemTableRep(const rdb::MemTableRep::KeyComparator& cmp,
                                                rdb::Allocator* arena,
                                                const rdb::SliceTransform* transform,
                                                rdb::Logger* logger, uint32_t column_family_id) {
  // A memtable RocksDB asks for cannot be refused. Where the rep cannot
  // serve the column family (its comparator, no memory for its index), the
  // memtable is RocksDB's skip list, and the LOG says why.
  auto fallback = [&](rdb::InfoLogLevel level, const std::string& why) {
    rdb::Log(level, logger, "%s: %s; this memtable uses RocksDB's skip list instead",
             spec_.name().c_str(), why.c_str());
    return rdb::SkipListFactory().CreateMemTableRep(cmp, arena, transform, logger);
  };
  try {
    std::unique_ptr<UserKeyComparator> owned;
    const UserKeyComparator* order = OrderOf(cmp, &owned);
    if (order == nullptr) {
      return fallback(rdb::InfoLogLevel::ERROR_LEVEL,
                      "the memtable's key comparator is not RocksDB's own, so its order cannot "
                      "be read");
    }
    const Status serves = spec_.CheckComparator(order);
    if (!serves.ok()) return fallback(rdb::InfoLogLevel::WARN_LEVEL, serves.message());
    auto allocator = std::make_unique<ArenaAllocator>(arena);
    RepContext context;
    context.allocator = allocator.get();
    context.comparator = order;
    context.rows = true;
    // RocksDB does not say how big the memtable will grow: the reps size
    // themselves as it fills.
    context.write_buffer_size = 0;
    // Each column family its own history (LineageSet).
    context.lineage = lineages_.For(column_family_id);
    std::unique_ptr<Rep> rep;
    Status s = spec_.NewRep(context, &rep);
    if (!s.ok()) return fallback(rdb::InfoLogLevel::ERROR_LEVEL, s.ToString());
    LogDecision(logger, *context.lineage);
    return new MemTableRepAdapter(cmp, arena, std::move(allocator), std::move(owned),
                                  std::move(rep), spec_.traits());
  } catch (const std::bad_alloc&) {
    return fallback(rdb::InfoLogLevel::ERROR_LEVEL, "out of memory");
  }
}

void RepFactory::LogDecision(rdb::Logger* logger, const RepLineage& lineage) const {
  const std::string line = registry::DescribeNewestDecision(spec_, lineage);
  if (line.empty()) return;
  rdb::Log(rdb::InfoLogLevel::INFO_LEVEL, logger, "%s", line.c_str());
}

rdb::Status GetAutoCounters(const rdb::MemTableRepFactory& factory, AutoCounters* out) {
  return GetAutoCounters(factory, 0, out);
}

rdb::Status GetAutoCounters(const rdb::MemTableRepFactory& factory, uint32_t column_family_id,
                            AutoCounters* out) {
  const LineageSet* set = factory.GetOptions<LineageSet>(RepFactory::kLineageSetOptionsName);
  if (set == nullptr) {
    return rdb::Status::NotFound(std::string("the memtable factory ") + factory.Name() +
                                 " is not one of memrep's; its memtables have no Auto counters");
  }
  try {
    const std::shared_ptr<RepLineage> lineage = set->Find(column_family_id);
    *out = lineage != nullptr ? AutoCountersOf(*lineage) : AutoCounters{};
  } catch (const std::bad_alloc&) {
    return rdb::Status::MemoryLimit("could not copy memrep.Auto's counters");
  }
  return rdb::Status::OK();
}

rdb::Status NewRepFactory(std::string_view spec_text,
                          std::shared_ptr<rdb::MemTableRepFactory>* out) {
  RepSpec spec;
  Status s = RepSpec::Parse(spec_text, &spec);
  if (!s.ok()) return ToRocks(s);
  rdb::Status checked = CheckForRocksDb(spec);
  if (!checked.ok()) return checked;
  *out = std::make_shared<RepFactory>(spec);
  return rdb::Status::OK();
}

}  // namespace memrep::rocksdb_plugin
