// The trie-table face (--face=trie_table): reads from a memtable frozen into
// a table file, memrep::TrieTable (include/memrep/trie_table.h). For each read
// workload on a memrep rep, untimed: a standalone MemTable with the rep's
// options and convert_to_sst=kFileMmap, file=<--table_dir>/<a new name>, the
// data set written into it, Freeze (which makes the file a table) and
// TrieTable::Open; then the timed reads run on the table, with the rep
// level's checks. The table's note gives Freeze's and Open's times; its
// B/entry is the file's size per entry. The file is removed afterwards.
//
// Write and mixed workloads are skipped (a table takes no writes), and so is
// a memrep rep whose options have no convert_to_sst (it freezes into no
// table). RocksDB's reps run at the rep level, noted as under
// --face=standalone, so that the ratio column still compares with them.
#pragma once

#include <string>

#include "memrep/trie_table.h"
#include "standalone_face.h"
#include "workloads.h"

namespace memrep::bench {

class TrieTableFace {
 public:
  explicit TrieTableFace(const TrieTable& table) : table_(table) {}

  class Reader {
   public:
    Reader(TrieTableFace& face, const WorkloadInput& in)
        : table_(face.table_), keys_(*in.keys), values_(*in.values), key_(keys_.key_size(), '\0') {}
    GetResult Get(uint64_t key_number);
    // A Get per key (a table has no batch read).
    void GetBatch(std::span<const uint32_t> key_numbers, GetResult* out) {
      for (size_t i = 0; i < key_numbers.size(); ++i) out[i] = Get(key_numbers[i]);
    }

   private:
    const TrieTable& table_;
    const KeyCodec& keys_;
    const ValuePool& values_;
    std::string key_;
    std::string value_;
  };

  class Cursor : public IteratorCursor<TrieTable> {
   public:
    Cursor(TrieTableFace& face, const WorkloadInput& in)
        : IteratorCursor<TrieTable>(face.table_, *in.keys) {}
  };

  void Freeze() {}  // a table is read-only

  // The table file's size: a table has nothing in memory but its mapping.
  void MeasureMemory(uint64_t entries, Measurement* m) {
    m->entries = entries;
    m->memory_bytes = table_.FileBytes();
    m->arena_reserved_bytes = 0;
  }

 private:
  const TrieTable& table_;
};

// Why a memrep rep's options cannot make a trie table under
// --face=trie_table ("" if they can): the rep has no convert_to_sst option.
std::string TrieTableSkipReason(const RepFactory& factory);

// RunWorkload for a memrep rep under --face=trie_table (above). REQUIRES:
// factory.memrep(), a read workload, TrieTableSkipReason(factory) empty.
Measurement RunTrieTableWorkload(const WorkloadInfo& workload, const RepFactory& factory,
                                 const WorkloadInput& input);

}  // namespace memrep::bench
