// bench.SkipListNDebug: RocksDB's skip-list rep compiled without assertions
// from the source of the installed librocksdb's version (the same source and
// renaming as the skip_list_ndebug peer, peers.cmake), in a plugin of its own
// for Debian's db_bench, whose librocksdb keeps its assertions:
//
//   LD_PRELOAD=build/peers/bench/libmemrep_skip_list_ndebug.so db_bench
//       --memtablerep=bench.SkipListNDebug --benchmarks=fillrandom ...
//
// It is the base of bench/matrix/matrix.py's db_bench cells when built: the
// skip list as a release build of RocksDB has it. Everything in the library
// is hidden (peers.cmake), so that its copy of RocksDB's skip list never
// interposes on librocksdb's; only loading it does something (registering).
#include <rocksdb/memtablerep.h>
#include <rocksdb/utilities/object_registry.h>

#include <memory>
#include <string>

namespace {

namespace rdb = ROCKSDB_NAMESPACE;

// peers.cmake renames SkipListFactory for this library: this is the copy
// compiled here, not librocksdb's.
class SkipListNDebugFactory final : public rdb::SkipListFactory {
 public:
  static const char* kClassName() { return "bench.SkipListNDebug"; }
  const char* Name() const override { return kClassName(); }
};

// Loading the library registers the factory in RocksDB's default library.
const bool kRegistered = [] {
  rdb::ObjectLibrary::Default()->AddFactory<rdb::MemTableRepFactory>(
      rdb::ObjectLibrary::PatternEntry(SkipListNDebugFactory::kClassName()),
      [](const std::string& /*uri*/, std::unique_ptr<rdb::MemTableRepFactory>* guard,
         std::string* /*errmsg*/) {
        guard->reset(new SkipListNDebugFactory());
        return guard->get();
      });
  return true;
}();

}  // namespace
