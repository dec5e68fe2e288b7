// skip_list_ndebug: RocksDB's SkipListFactory as compiled from the source
// package beside this file's object (peers.cmake), without assertions.
// peers.cmake renames SkipListFactory and InlineSkipList for this library with
// macros, so here `SkipListFactory` is the renamed copy, not librocksdb's.
#include <rocksdb/memtablerep.h>

namespace memrep::bench {
namespace {

// Named apart from librocksdb's factory, so that the bench can tell them apart.
class SkipListNdebugFactory : public ROCKSDB_NAMESPACE::SkipListFactory {
 public:
  const char* Name() const override { return "SkipListFactoryNdebug"; }
};

}  // namespace

ROCKSDB_NAMESPACE::MemTableRepFactory* NewSkipListNdebugFactory() {
  return new SkipListNdebugFactory();
}

}  // namespace memrep::bench
