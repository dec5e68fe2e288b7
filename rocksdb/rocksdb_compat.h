// The one place where memrep's RocksDB face depends on which RocksDB it is
// built against. Everything else in rocksdb/ uses only what every supported
// version offers (docs/rocksdb.md, "Supported versions").
//
// Two builds, one adapter:
// - In-tree (MEMREP_ROCKSDB_INTREE, set by memrep.mk and the CMake plugin
//   fragment when the repository is RocksDB's plugin/memrep): RocksDB's own
//   internal headers declare the memtable Allocator, Arena and LookupKey, so
//   nothing is copied and any RocksDB from 7.8 on is served.
// - Preload (memrep's own CMake against an installed RocksDB): the public
//   headers only forward-declare those classes. With the installed
//   version's source tree (-DMEMREP_ROCKSDB_SOURCE=DIR, which defines
//   MEMREP_ROCKSDB_SOURCE_HEADERS; cmake/rocksdb_source.cmake refuses a tree
//   of another version) they come from its internal headers, as in-tree.
//   Without one their layouts are declared here as RocksDB 7.8 has them,
//   checked by rocksdb_plugin_test on a real database, and any other version
//   is refused here and at configure time.
//
// Version differences (each checked against that version's headers):
// - 9.6 added paranoid memory checks (ColumnFamilyOptions::
//   paranoid_memory_checks): MemTableRep::GetAndValidate and the iterator's
//   SeekAndValidate / NextAndValidate / PrevAndValidate, whose defaults
//   answer NotSupported (MEMREP_ROCKSDB_HAS_VALIDATION).
// - 10.7 gave GetAndValidate and SeekAndValidate two more arguments: whether
//   to check the order, and RocksDB's check of a row (the per-key checksum of
//   memtable_verify_per_key_checksum_on_seek), a KeyCheck
//   (MEMREP_ROCKSDB_HAS_KEY_VALIDATION).
// - 11.1 added MemTableRep::MultiGet over sorted memtable keys, whose default
//   seeks an iterator with a memtable key and an empty internal key
//   (MEMREP_ROCKSDB_HAS_REP_MULTIGET).
#pragma once

#include <rocksdb/memtablerep.h>
#include <rocksdb/slice.h>
#include <rocksdb/status.h>
#include <rocksdb/version.h>

#include <cstddef>
#include <functional>

#if ROCKSDB_MAJOR < 7 || (ROCKSDB_MAJOR == 7 && ROCKSDB_MINOR < 8)
#error "memrep's RocksDB face needs RocksDB 7.8 or newer"
#endif

#define MEMREP_ROCKSDB_AT_LEAST(major, minor) \
  (ROCKSDB_MAJOR > (major) || (ROCKSDB_MAJOR == (major) && ROCKSDB_MINOR >= (minor)))
#define MEMREP_ROCKSDB_HAS_VALIDATION MEMREP_ROCKSDB_AT_LEAST(9, 6)
#define MEMREP_ROCKSDB_HAS_KEY_VALIDATION MEMREP_ROCKSDB_AT_LEAST(10, 7)
#define MEMREP_ROCKSDB_HAS_REP_MULTIGET MEMREP_ROCKSDB_AT_LEAST(11, 1)
// RocksDB's internal headers are at hand: in-tree, or a source tree given to
// the preload build.
#if defined(MEMREP_ROCKSDB_INTREE) || defined(MEMREP_ROCKSDB_SOURCE_HEADERS)
#define MEMREP_ROCKSDB_INTERNAL_HEADERS 1
#else
#define MEMREP_ROCKSDB_INTERNAL_HEADERS 0
#endif

namespace memrep::rocksdb_plugin {
// RocksDB's check of one row (10.7 on), handed to the validating reads.
using KeyCheck =
    std::function<ROCKSDB_NAMESPACE::Status(const char* row, bool allow_data_in_errors)>;
}  // namespace memrep::rocksdb_plugin

#if MEMREP_ROCKSDB_INTERNAL_HEADERS

// Angle brackets: RocksDB's own root (-I), never memrep's src/ (-iquote).
#include <db/lookup_key.h>
#include <memory/arena.h>

namespace memrep::rocksdb_plugin {

inline ROCKSDB_NAMESPACE::Slice InternalKeyOf(const ROCKSDB_NAMESPACE::LookupKey& key) {
  return key.internal_key();
}

inline ROCKSDB_NAMESPACE::Allocator* AsAllocator(ROCKSDB_NAMESPACE::Arena* arena) { return arena; }

}  // namespace memrep::rocksdb_plugin

#else  // the preload build without a RocksDB source tree

// CMake refuses other versions at configure time with the same advice.
static_assert(ROCKSDB_MAJOR == 7 && ROCKSDB_MINOR == 8,
              "memrep's preload plugin declares RocksDB 7.8's memtable Allocator and LookupKey "
              "layouts, and this RocksDB is another version. Configure with "
              "-DMEMREP_ROCKSDB_SOURCE=<this RocksDB version's source tree>, or build memrep "
              "inside RocksDB's source tree (ROCKSDB_PLUGINS=memrep; docs/rocksdb.md), or "
              "configure with -DMEMREP_WITH_ROCKSDB=OFF for the standalone library alone.");

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

#endif  // MEMREP_ROCKSDB_INTERNAL_HEADERS
