#include "rep_factory.h"

#include <rocksdb/comparator.h>
#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/options_type.h>

#include <map>
#include <memory>

#include "comparator_probe.h"
#include "concurrency/mutex.h"
#include "memrep/auto.h"
#include "memrep/rocksdb.h"
#include "memtable_rep_adapter.h"
#include "registry/registry.h"

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

}  // namespace

RepFactory::RepFactory(const RepSpec& spec)
    : spec_(spec), nickname_(spec.Nickname()), lineage_(std::make_shared<RepLineage>()) {
  RegisterOptions(spec_.name(), &spec_, &TypeInfoOf(spec_));
  // No options of its own: registered only to be found (GetAutoCounters).
  static const auto* const kNoOptions = new std::unordered_map<std::string, rdb::OptionTypeInfo>();
  RegisterOptions(kLineageOptionsName, lineage_.get(), kNoOptions);
}

rdb::Status RepFactory::PrepareOptions(const rdb::ConfigOptions& config_options) {
  rdb::Status s = ToRocks(spec_.Validate());
  return s.ok() ? MemTableRepFactory::PrepareOptions(config_options) : s;
}

rdb::Status RepFactory::ConfigureOptions(
    const rdb::ConfigOptions& config_options,
    const std::unordered_map<std::string, std::string>& opts_map,
    std::unordered_map<std::string, std::string>* unused) {
  // An OPTIONS file written by a newer memrep may name an option this one
  // does not know: the caller decides (ignore_unknown_options).
  const std::vector<std::string> names = spec_.OptionNames();
  for (const auto& [name, value] : opts_map) {
    if (config_options.ignore_unknown_options) break;
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
      return rdb::Status::InvalidArgument("unknown option '" + name + "' for " + spec_.name() +
                                          "; known options: " + known);
    }
  }
  return MemTableRepFactory::ConfigureOptions(config_options, opts_map, unused);
}

rdb::Status RepFactory::ValidateOptions(const rdb::DBOptions& db_opts,
                                        const rdb::ColumnFamilyOptions& cf_opts) const {
  const rdb::Comparator* cmp = cf_opts.comparator;
  if (cmp != nullptr && cmp->timestamp_size() > 0) {
    return rdb::Status::InvalidArgument(
        spec_.name() + " does not support user-defined timestamps (the comparator " + cmp->Name() +
        " has a timestamp): it finds keys by their bytes, timestamp included; use the "
        "skip_list memtable for this column family");
  }
  const bool bytewise = cmp == nullptr || cmp == rdb::BytewiseComparator() ||
                        std::string(cmp->Name()) == rdb::BytewiseComparator()->Name();
  const bool reverse =
      cmp != nullptr && (cmp == rdb::ReverseBytewiseComparator() ||
                         std::string(cmp->Name()) == rdb::ReverseBytewiseComparator()->Name());
  if (!bytewise && !reverse) {
    // RocksDB hands a rep only an opaque comparator of internal keys, so the
    // plugin serves the two orders it can recognise.
    return rdb::Status::InvalidArgument(
        spec_.name() +
        " serves the bytewise comparators (leveldb.BytewiseComparator and "
        "rocksdb.ReverseBytewiseComparator), but this column family uses " +
        cmp->Name() + "; use the skip_list memtable for it");
  }
  const memrep::Status face = spec_.CheckRowsFace();
  if (!face.ok()) {
    return face.IsNotSupported() ? rdb::Status::NotSupported(face.message())
                                 : rdb::Status::InvalidArgument(face.message());
  }
  const memrep::Status fits = spec_.CheckWriteBufferSize(cf_opts.write_buffer_size);
  if (!fits.ok()) {
    return rdb::Status::InvalidArgument(fits.message() +
                                        " (this column family's write_buffer_size)");
  }
  // Size the reps from the column family's write buffer (the largest, if one
  // factory serves several).
  uint64_t seen = observed_write_buffer_size_.load(std::memory_order_relaxed);
  while (cf_opts.write_buffer_size > seen &&
         !observed_write_buffer_size_.compare_exchange_weak(seen, cf_opts.write_buffer_size,
                                                            std::memory_order_relaxed)) {
  }
  return MemTableRepFactory::ValidateOptions(db_opts, cf_opts);
}

rdb::MemTableRep* RepFactory::CreateMemTableRep(const rdb::MemTableRep::KeyComparator& cmp,
                                                rdb::Allocator* arena,
                                                const rdb::SliceTransform* transform,
                                                rdb::Logger* logger) {
  // Reached with an order the rep cannot serve only if the options were not
  // validated (a column family made without RocksDB checking them); and a
  // rep may fail to be built (no address space for its index). Either way,
  // never serve a wrong order or fail the memtable: fall back to a skip list.
  auto fallback = [&](const std::string& why) {
    rdb::Log(rdb::InfoLogLevel::ERROR_LEVEL, logger,
             "%s: %s; this memtable uses RocksDB's skip list instead", spec_.name().c_str(),
             why.c_str());
    return rdb::SkipListFactory().CreateMemTableRep(cmp, arena, transform, logger);
  };
  const UserKeyComparator* order = ProbeOrder(cmp);
  if (order == nullptr) return fallback("the key comparator is not bytewise or reverse bytewise");
  const uint64_t write_buffer_size = observed_write_buffer_size_.load(std::memory_order_relaxed);
  try {
    auto allocator = std::make_unique<ArenaAllocator>(arena);
    RepContext context;
    context.allocator = allocator.get();
    context.comparator = order;
    context.rows = true;
    context.write_buffer_size = write_buffer_size;
    context.lineage = lineage_.get();
    std::unique_ptr<Rep> rep;
    Status s = spec_.NewRep(context, &rep);
    if (!s.ok()) return fallback(s.ToString());
    LogDecision(logger);
    // Reported on top of the usage once the rep is nearly full: more than
    // any write buffer RocksDB compares it with.
    const size_t full_signal = write_buffer_size != 0 ? 2 * write_buffer_size : size_t{1} << 40;
    return new MemTableRepAdapter(cmp, arena, std::move(allocator), std::move(rep), spec_.traits(),
                                  full_signal);
  } catch (const std::bad_alloc&) {
    return fallback("out of memory");
  }
}

void RepFactory::LogDecision(rdb::Logger* logger) const {
  const std::string line = registry::DescribeNewestDecision(spec_, *lineage_);
  if (line.empty()) return;
  rdb::Log(rdb::InfoLogLevel::INFO_LEVEL, logger, "%s", line.c_str());
}

rdb::Status GetAutoCounters(const rdb::MemTableRepFactory& factory, AutoCounters* out) {
  const RepLineage* lineage = factory.GetOptions<RepLineage>(RepFactory::kLineageOptionsName);
  if (lineage == nullptr) {
    return rdb::Status::NotFound(std::string("the memtable factory ") + factory.Name() +
                                 " is not one of memrep's; its memtables have no Auto counters");
  }
  try {
    *out = AutoCountersOf(*lineage);
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
  *out = std::make_shared<RepFactory>(spec);
  return rdb::Status::OK();
}

}  // namespace memrep::rocksdb_plugin
