#include "memrep/trie_table.h"

#include <new>

#include "memory/vm_region.h"
#include "memrep/iterator.h"
#include "trie/trie.h"
#include "trie/trie_file.h"
#include "trie/trie_iterator.h"

namespace memrep {

struct TrieTable::Impl {
  std::unique_ptr<memory::VmRegion> region;
  std::unique_ptr<trie::Trie> trie;  // refers to *region: reset first
  trie::TableFooter footer;
  std::string path;

  ~Impl() { trie.reset(); }
};

TrieTable::TrieTable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TrieTable::~TrieTable() = default;

Status TrieTable::Open(const std::string& path, std::unique_ptr<TrieTable>* out) {
  std::unique_ptr<Impl> impl(new (std::nothrow) Impl());
  if (impl == nullptr) return Status::OutOfMemory("could not allocate a trie table");
  try {
    impl->path = path;
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not copy the table's path");
  }
  // A trie of the RocksDB face (rows) is NotSupported: its rows were never
  // in the file (Trie::Attach).
  Status s = trie::OpenTable(path, &impl->region, &impl->trie, &impl->footer);
  if (!s.ok()) return s;
  out->reset(new (std::nothrow) TrieTable(std::move(impl)));
  if (*out == nullptr) return Status::OutOfMemory("could not allocate a trie table");
  return Status::OK();
}

Status TrieTable::Get(std::string_view user_key, SequenceNumber snapshot, std::string* value,
                      ValueType* type) const {
  if (snapshot > kMaxSequenceNumber) snapshot = kMaxSequenceNumber;
  const trie::Trie& t = *impl_->trie;
  trie::Ref v = 0;
  t.VisitVersions(user_key, snapshot, [&](trie::Ref version) {
    v = version;
    return false;  // the newest at or below the snapshot
  });
  if (v == 0) return Status::NotFound();
  *type = static_cast<ValueType>(TagType(t.Tag(v)));
  try {
    value->assign(t.Value(v));
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not copy the value");
  }
  return Status::OK();
}

Status TrieTable::NewRepIterator(std::unique_ptr<RepIterator>* out) const {
  out->reset(new (std::nothrow) trie::TrieIterator(*impl_->trie));
  if (*out == nullptr) return Status::OutOfMemory("could not allocate an iterator");
  return Status::OK();
}

uint64_t TrieTable::NumEntries() const { return impl_->footer.entries; }

bool TrieTable::reverse() const { return impl_->trie->reverse(); }

uint64_t TrieTable::FileBytes() const { return impl_->region->capacity(); }

Status TrieTable::Verify() const {
  uint64_t entries = 0;
  Status s = impl_->trie->Check(&entries);
  if (!s.ok()) return Status::Corruption("the table file '" + impl_->path + "': " + s.message());
  if (entries != impl_->footer.entries) {
    return Status::Corruption("the table file '" + impl_->path + "' holds " +
                              std::to_string(entries) + " records, but its footer says " +
                              std::to_string(impl_->footer.entries));
  }
  return Status::OK();
}

Status TrieTable::NewIterator(std::unique_ptr<MemTableIterator>* out) const {
  std::unique_ptr<RepIterator> rep;
  Status s = NewRepIterator(&rep);
  if (!s.ok()) return s;
  out->reset(new (std::nothrow) MemTableIterator(std::move(rep)));
  if (*out == nullptr) return Status::OutOfMemory("could not allocate an iterator");
  return Status::OK();
}

}  // namespace memrep
