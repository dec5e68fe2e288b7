#include "user_comparator.h"

#include "rocksdb_compat.h"

#if defined(MEMREP_ROCKSDB_INTREE)
#include <db/memtable.h>
#else
#include <dlfcn.h>
#endif

namespace memrep::rocksdb_plugin {

#if defined(MEMREP_ROCKSDB_INTREE)

namespace {

// The virtual table pointer an object starts with (the Itanium C++ ABI's
// layout of a class with virtual functions and no virtual base).
const void* VtableOf(const void* object) { return *static_cast<const void* const*>(object); }

}  // namespace

// RocksDB's own headers: the type is known, and a MemTable::KeyComparator of
// our own making has the virtual table every one has.
const ROCKSDB_NAMESPACE::Comparator* UserComparatorOf(
    const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp) {
  using ROCKSDB_NAMESPACE::MemTable;
  static const MemTable::KeyComparator kSample{
      ROCKSDB_NAMESPACE::InternalKeyComparator(ROCKSDB_NAMESPACE::BytewiseComparator())};
  if (VtableOf(&cmp) != VtableOf(&kSample)) return nullptr;
  return static_cast<const MemTable::KeyComparator&>(cmp).comparator.user_comparator();
}

#else  // the preload build: RocksDB 7.8 (rocksdb_compat.h)

namespace {

// RocksDB 7.8's MemTable::KeyComparator: its virtual table, then its
// InternalKeyComparator member (a virtual table and the wrapped user
// comparator).
struct KeyComparatorLayout {
  const void* vtable;
  const void* internal_vtable;
  const ROCKSDB_NAMESPACE::Comparator* user;
};

// Where objects of the class whose virtual table has this (mangled) symbol
// point: two words past its start (the offset to top and the type info come
// first); nullptr if librocksdb does not export it. The symbol is looked up
// in the library that holds RocksDB's BytewiseComparator, so that a
// librocksdb loaded with RTLD_LOCAL (as a JVM loads RocksJava's) is found too.
const void* VtableOfClass(const char* symbol) {
  void* library = nullptr;
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&ROCKSDB_NAMESPACE::BytewiseComparator), &info) != 0 &&
      info.dli_fname != nullptr) {
    library = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  }
  const void* table = ::dlsym(library != nullptr ? library : RTLD_DEFAULT, symbol);
  if (library != nullptr) ::dlclose(library);  // RTLD_NOLOAD took a reference; the library stays
  return table == nullptr ? nullptr : static_cast<const char*>(table) + 2 * sizeof(void*);
}

}  // namespace

const ROCKSDB_NAMESPACE::Comparator* UserComparatorOf(
    const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp) {
  static const void* const kKeyComparator = VtableOfClass("_ZTVN7rocksdb8MemTable13KeyComparatorE");
  static const void* const kInternal = VtableOfClass("_ZTVN7rocksdb21InternalKeyComparatorE");
  if (kKeyComparator == nullptr || kInternal == nullptr) return nullptr;
  const auto& layout = reinterpret_cast<const KeyComparatorLayout&>(cmp);
  if (layout.vtable != kKeyComparator || layout.internal_vtable != kInternal) return nullptr;
  return layout.user;
}

#endif

}  // namespace memrep::rocksdb_plugin
