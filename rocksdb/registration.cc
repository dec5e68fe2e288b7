// Registers memrep's factories with RocksDB's object registry.
#include <charconv>

#include "memrep_rocksdb.h"
#include "sorted_hash_factory.h"

namespace memrep::rocksdb_plugin {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

// "<name>" or "<name>:<bucket_count>".
rdb::MemTableRepFactory* MakeSortedHash(const std::string& uri,
                                        std::unique_ptr<rdb::MemTableRepFactory>* guard,
                                        std::string* errmsg) {
  SortedHashOptions options;
  const size_t colon = uri.find(':');
  if (colon != std::string::npos) {
    Status s = options.Set("bucket_count", uri.substr(colon + 1));
    if (!s.ok()) {
      *errmsg = "memtable factory '" + uri + "': " + s.message();
      return nullptr;
    }
  }
  guard->reset(new SortedHashRepFactory(options));
  return guard->get();
}

}  // namespace
}  // namespace memrep::rocksdb_plugin

extern "C" int memrep_RegisterFactories(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                        const std::string& /*arg*/) {
  namespace rdb = ROCKSDB_NAMESPACE;
  using memrep::rocksdb_plugin::SortedHashRepFactory;
  library.AddFactory<rdb::MemTableRepFactory>(
      rdb::ObjectLibrary::PatternEntry(SortedHashRepFactory::kClassName(), true)
          .AnotherName(SortedHashRepFactory::kNickName())
          .AddNumber(":"),
      memrep::rocksdb_plugin::MakeSortedHash);
  // The seed design's own name, so its usage lines work unchanged.
  library.AddFactory<rdb::MemTableRepFactory>(
      rdb::ObjectLibrary::PatternEntry("speedb.HashSpdRepFactory", true).AddNumber(":"),
      memrep::rocksdb_plugin::MakeSortedHash);
  return 2;
}

namespace {
// Loading the library registers the factories in the default library.
const int kRegistered =
    memrep_RegisterFactories(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");
}  // namespace
