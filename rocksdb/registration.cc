// Registers a factory for every rep of memrep's registry with RocksDB's
// object registry: when the library is loaded, and for a rep registered later.
#include <mutex>
#include <set>

#include "memrep/rocksdb.h"
#include "registry/registry.h"
#include "rep_factory.h"

namespace memrep::rocksdb_plugin {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

// "<name>", "<name>:<positional option>" or an alias of either: RocksDB hands
// the whole uri.
rdb::MemTableRepFactory* Make(const std::string& uri,
                              std::unique_ptr<rdb::MemTableRepFactory>* guard,
                              std::string* errmsg) {
  RepSpec spec;
  Status s = RepSpec::Parse(uri, &spec);
  if (!s.ok()) {
    *errmsg = "memtable factory '" + uri + "': " + s.message();
    return nullptr;
  }
  guard->reset(new RepFactory(spec));
  return guard->get();
}

void AddFactory(rdb::ObjectLibrary& library, const registry::Registration& rep) {
  auto pattern = rdb::ObjectLibrary::PatternEntry(rep.name, /*optional=*/true);
  for (const std::string& alias : rep.aliases) pattern.AnotherName(alias);
  // Anything after the colon goes to the positional option, whose parser
  // says what is wrong with it.
  if (!rep.positional_option.empty()) pattern.AddSeparator(":", /*at_least_one=*/true);
  library.AddFactory<rdb::MemTableRepFactory>(pattern, Make);
}

}  // namespace
}  // namespace memrep::rocksdb_plugin

extern "C" int memrep_RegisterFactories(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                        const std::string& /*arg*/) {
  int n = 0;
  for (const memrep::registry::Registration* rep : memrep::registry::All()) {
    memrep::rocksdb_plugin::AddFactory(library, *rep);
    ++n;
  }
  return n;
}

namespace {

// Loading the library registers every rep in the default library, and every
// rep registered later (a test's, an application's) as it registers.
const bool kRegistered = [] {
  memrep::registry::ForEachNowAndLater([](const memrep::registry::Registration& rep) {
    memrep::rocksdb_plugin::AddFactory(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), rep);
  });
  return true;
}();

}  // namespace
