// bench.Ceiling: a memtable rep that stores nothing, to measure the rest of
// RocksDB's write and read path. Its own shared library,
// libmemrep_ceiling.so, preloaded into Debian's db_bench beside (never
// inside) memrep's plugin:
//
//   LD_PRELOAD=build/release/bench/libmemrep_ceiling.so db_bench
//       --memtablerep=bench.Ceiling --benchmarks=fillrandom,readrandom ...
//
// What a fill pays with it is RocksDB's own work per write (the batch, the
// sequence, the memtable's row in RocksDB's arena, which RocksDB still
// encodes and counts) and nothing of a rep's: Insert returns at once. A read
// finds nothing in the memtable (and, with no flush, nothing at all), so
// readrandom and seekrandom measure RocksDB's lookup path around an empty
// memtable. No figure of a real rep can reach the ceiling's: the share of it
// a rep reaches says how much of the way is left (bench/README.md).
//
// It is not a rep anyone should use: nothing written can be read back.
#include <rocksdb/memtablerep.h>
#include <rocksdb/utilities/object_registry.h>

#include <memory>
#include <string>

#include "rocksdb_compat.h"  // RocksDB's Arena is an Allocator

namespace {

namespace rdb = ROCKSDB_NAMESPACE;

class CeilingRep final : public rdb::MemTableRep {
 public:
  explicit CeilingRep(rdb::Allocator* allocator) : MemTableRep(allocator) {}

  void Insert(rdb::KeyHandle /*handle*/) override {}
  bool InsertKey(rdb::KeyHandle /*handle*/) override { return true; }
  void InsertConcurrently(rdb::KeyHandle /*handle*/) override {}
  bool InsertKeyConcurrently(rdb::KeyHandle /*handle*/) override { return true; }
  bool Contains(const char* /*key*/) const override { return false; }
  void Get(const rdb::LookupKey& /*k*/, void* /*callback_args*/,
           bool (* /*callback_func*/)(void* arg, const char* entry)) override {}
  size_t ApproximateMemoryUsage() override { return 0; }

  class Iterator final : public rdb::MemTableRep::Iterator {
   public:
    bool Valid() const override { return false; }
    const char* key() const override { return nullptr; }
    void Next() override {}
    void Prev() override {}
    void Seek(const rdb::Slice& /*internal_key*/, const char* /*memtable_key*/) override {}
    void SeekForPrev(const rdb::Slice& /*internal_key*/, const char* /*memtable_key*/) override {}
    void SeekToFirst() override {}
    void SeekToLast() override {}
  };
  rdb::MemTableRep::Iterator* GetIterator(rdb::Arena* arena) override {
    if (arena == nullptr) return new Iterator();
    // The caller only runs the destructor: the object must live in its arena.
    return new (memrep::rocksdb_plugin::AsAllocator(arena)->AllocateAligned(sizeof(Iterator)))
        Iterator();
  }
};

class CeilingFactory final : public rdb::MemTableRepFactory {
 public:
  static const char* kClassName() { return "bench.Ceiling"; }
  const char* Name() const override { return kClassName(); }
  using rdb::MemTableRepFactory::CreateMemTableRep;
  rdb::MemTableRep* CreateMemTableRep(const rdb::MemTableRep::KeyComparator& /*compare*/,
                                      rdb::Allocator* allocator,
                                      const rdb::SliceTransform* /*transform*/,
                                      rdb::Logger* /*logger*/) override {
    return new CeilingRep(allocator);
  }
  bool IsInsertConcurrentlySupported() const override { return true; }
};

// Loading the library registers the factory in RocksDB's default library.
const bool kRegistered = [] {
  rdb::ObjectLibrary::Default()->AddFactory<rdb::MemTableRepFactory>(
      rdb::ObjectLibrary::PatternEntry(CeilingFactory::kClassName()),
      [](const std::string& /*uri*/, std::unique_ptr<rdb::MemTableRepFactory>* guard,
         std::string* /*errmsg*/) {
        guard->reset(new CeilingFactory());
        return guard->get();
      });
  return true;
}();

}  // namespace
