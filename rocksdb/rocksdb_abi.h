// Declarations of RocksDB 7.8.3 classes that its public headers only
// forward-declare, written to match the library's ABI: the memtable allocator
// (memory/allocator.h) and the lookup key (db/lookup_key.h). memrep reads
// them; it never constructs them. Checked by rocksdb_plugin_test.cc, which
// runs memrep's rep on a real RocksDB database.
#pragma once

#include <rocksdb/memtablerep.h>
#include <rocksdb/slice.h>
#include <rocksdb/version.h>

#include <cstddef>

// The declarations below copy RocksDB 7.8's layouts. Built against another
// RocksDB they would compile and be silently wrong, so refuse it (CMake
// checks the same at configure time, with the same advice).
static_assert(ROCKSDB_MAJOR == 7 && ROCKSDB_MINOR == 8,
              "memrep's RocksDB plugin declares RocksDB 7.8's memtable Allocator and LookupKey "
              "layouts; this RocksDB is another version. Build with -DMEMREP_WITH_ROCKSDB=OFF "
              "for the standalone library alone.");

namespace ROCKSDB_NAMESPACE {

class Logger;

// The memtable's arena interface. `Arena` derives from it alone, so an
// Arena* is usable as an Allocator*.
class Allocator {
 public:
  virtual ~Allocator() {}
  virtual char* Allocate(size_t bytes) = 0;
  virtual char* AllocateAligned(size_t bytes, size_t huge_page_size = 0,
                                Logger* logger = nullptr) = 0;
  virtual size_t BlockSize() const = 0;
};

}  // namespace ROCKSDB_NAMESPACE

namespace memrep::rocksdb_plugin {

// The field layout of rocksdb::LookupKey: memtable_key = [start, end),
// internal_key = [kstart, end).
struct LookupKeyLayout {
  const char* start;
  const char* kstart;
  const char* end;
  char space[200];
};

inline ROCKSDB_NAMESPACE::Slice InternalKeyOf(const ROCKSDB_NAMESPACE::LookupKey& key) {
  const auto& layout = reinterpret_cast<const LookupKeyLayout&>(key);
  return ROCKSDB_NAMESPACE::Slice(layout.kstart, static_cast<size_t>(layout.end - layout.kstart));
}

inline ROCKSDB_NAMESPACE::Allocator* AsAllocator(ROCKSDB_NAMESPACE::Arena* arena) {
  return reinterpret_cast<ROCKSDB_NAMESPACE::Allocator*>(arena);
}

}  // namespace memrep::rocksdb_plugin
