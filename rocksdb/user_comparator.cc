#include "user_comparator.h"

#include "comparator_probe.h"
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
// may point: two words past its start (the offset to top and the type info
// come first). A virtual table is a weak symbol that any module using the
// class inline may hold a copy of (a test binary often holds
// InternalKeyComparator's), and RocksDB's objects point at the copy the
// dynamic linker bound, so there are two candidates: the one the global
// scope resolves to (the executable's copy, when it has one) and the one in
// the library that holds RocksDB's BytewiseComparator (found even when that
// library was loaded with RTLD_LOCAL, as a JVM loads RocksJava's).
struct Vtables {
  const void* global = nullptr;
  const void* library = nullptr;
  bool Empty() const { return global == nullptr && library == nullptr; }
  bool Holds(const void* p) const { return p != nullptr && (p == global || p == library); }
};

const void* PastHeader(const void* table) {
  return table == nullptr ? nullptr : static_cast<const char*>(table) + 2 * sizeof(void*);
}

Vtables VtablesOfClass(const char* symbol) {
  Vtables out;
  out.global = PastHeader(::dlsym(RTLD_DEFAULT, symbol));
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&ROCKSDB_NAMESPACE::BytewiseComparator), &info) != 0 &&
      info.dli_fname != nullptr) {
    if (void* library = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD); library != nullptr) {
      out.library = PastHeader(::dlsym(library, symbol));
      ::dlclose(library);  // RTLD_NOLOAD took a reference; the library stays
    }
  }
  return out;
}

}  // namespace

const ROCKSDB_NAMESPACE::Comparator* UserComparatorOf(
    const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp) {
  static const Vtables kKeyComparator = VtablesOfClass("_ZTVN7rocksdb8MemTable13KeyComparatorE");
  static const Vtables kInternal = VtablesOfClass("_ZTVN7rocksdb21InternalKeyComparatorE");
  if (kKeyComparator.Empty() || kInternal.Empty()) return nullptr;
  const auto& layout = reinterpret_cast<const KeyComparatorLayout&>(cmp);
  if (!kKeyComparator.Holds(layout.vtable) || !kInternal.Holds(layout.internal_vtable)) {
    return nullptr;
  }
  return layout.user;
}

#endif

const UserKeyComparator* BuiltinOrderOf(const ROCKSDB_NAMESPACE::Comparator* user) {
  if (user == ROCKSDB_NAMESPACE::BytewiseComparator()) return BytewiseComparator();
  if (user == ROCKSDB_NAMESPACE::ReverseBytewiseComparator()) return ReverseBytewiseComparator();
  return nullptr;
}

const UserKeyComparator* OrderOf(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
                                 std::unique_ptr<UserKeyComparator>* owned) {
  const ROCKSDB_NAMESPACE::Comparator* user = UserComparatorOf(cmp);
  if (user == nullptr) return ProbeOrder(cmp);
  if (const UserKeyComparator* builtin = BuiltinOrderOf(user)) return builtin;
  *owned = std::make_unique<RocksComparator>(user);
  return owned->get();
}

}  // namespace memrep::rocksdb_plugin
