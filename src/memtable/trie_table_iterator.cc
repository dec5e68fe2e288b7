// TrieTable::NewIterator: a table's iterator is the standalone face's
// MemTableIterator, so the face builds it, around the trie's own iterator
// (TrieTable::NewRepIterator, src/trie/trie_table.cc). The trie includes
// nothing of the face.
#include <memory>
#include <new>
#include <utility>

#include "memrep/memtable.h"
#include "memrep/rep.h"
#include "memrep/trie_table.h"

namespace memrep {

Status TrieTable::NewIterator(std::unique_ptr<MemTableIterator>* out) const {
  std::unique_ptr<RepIterator> rep;
  Status s = NewRepIterator(&rep);
  if (!s.ok()) return s;
  out->reset(new (std::nothrow) MemTableIterator(std::move(rep)));
  if (*out == nullptr) return Status::OutOfMemory("could not allocate an iterator");
  return Status::OK();
}

}  // namespace memrep
