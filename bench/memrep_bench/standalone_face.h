// The standalone face (--face=standalone): memrep's reps driven through
// memrep::MemTable, memrep's own API, with no RocksDB between the workload and
// the rep; and the standalone peers (peers/peers.h), other projects'
// memtables registered as reps of the view functions, the same way. The workloads are the rep
// level's (the phases are templates over a face, faces.h); what differs is each operation:
//
//   Put        MemTable::Put: the key and value as views; the rep stores them
//              in its own form (RepContext::rows is false).
//   PutBatch   one MemTable::Write of the batch's records (Rep::AddBatch).
//   Get        MemTable::Get, which copies the value out and returns no
//              sequence: the reader checks the value against the fill's
//              version (GetResult::sequence_known), and while a writer adds
//              versions accepts any value of the right size. With
//              --item_size=0 a Get cannot tell versions apart.
//   iterators  MemTable::NewIterator and MemTableIterator (Seek by user key).
//   memory     MemTable::MemoryUsage(): the whole blocks of memrep's arena
//              plus the rep's own structures.
//
// The MemTable is opened with the rep's options string and the
// write_buffer_size its factory was validated for (reps.h), so the rep is
// sized as at the rep level; its arena's block size is --arena_block_size.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "memrep/memtable.h"
#include "reps.h"
#include "workload_ops.h"
#include "workloads.h"

namespace memrep::bench {

// What a standalone Get's value says (Get returns no sequence): a value that
// is the fill's version (key index + 1) names it; any other leaves it
// unknown, right if it has the right size.
GetResult GetResultOfValue(uint64_t key_number, const std::string& value, const ValuePool& values);

// A Face::Cursor over the MemTableIterator of a `Source` (MemTable or
// TrieTable: Status NewIterator(std::unique_ptr<MemTableIterator>*) const).
template <class Source>
class IteratorCursor {
 public:
  IteratorCursor(const Source& source, const KeyCodec& keys)
      : source_(source), keys_(keys), key_(keys_.key_size(), '\0') {
    Renew();
  }
  // A failed NewIterator (no memory) leaves no iterator: not Valid(), so
  // the checks fail and say what they did not find.
  void Renew() {
    it_.reset();
    if (!source_.NewIterator(&it_).ok()) it_.reset();
  }
  void SeekToFirst() {
    if (it_ != nullptr) it_->SeekToFirst();
  }
  void Seek(uint64_t key_number) {
    keys_.Encode(key_number, key_.data());
    if (it_ != nullptr) it_->Seek(key_);
  }
  bool Valid() const { return it_ != nullptr && it_->Valid(); }
  void Next() { it_->Next(); }
  DecodedEntry entry() const { return DecodeBenchView(it_->entry(), keys_); }

 private:
  const Source& source_;
  const KeyCodec& keys_;
  std::string key_;
  std::unique_ptr<MemTableIterator> it_;
};

class TableFace {
 public:
  explicit TableFace(MemTable& table) : table_(table) {}

  class Writer {
   public:
    // `concurrent` is the MemTable's to decide: it lets writers in together
    // when the rep takes concurrent inserts, one at a time otherwise.
    Writer(TableFace& face, const WorkloadInput& in, bool /*concurrent*/)
        : table_(face.table_), keys_(*in.keys), values_(*in.values), key_(keys_.key_size(), '\0') {}
    bool Put(uint64_t key_number, SequenceNumber seq) {
      keys_.Encode(key_number, key_.data());
      last_ = table_.Put(key_, values_.ValueFor(seq), seq);
      return last_.ok();
    }
    bool PutBatch(std::span<const uint32_t> key_indexes);
    std::string Refusal(const std::string& what) const {
      return "memrep::MemTable refused " + what + ": " + last_.ToString();
    }

   private:
    MemTable& table_;
    const KeyCodec& keys_;
    const ValuePool& values_;
    std::string key_;
    std::string batch_keys_;  // PutBatch's keys, one after another
    std::vector<EntryView> batch_;
    Status last_;
  };

  class Reader {
   public:
    Reader(TableFace& face, const WorkloadInput& in)
        : table_(face.table_), keys_(*in.keys), values_(*in.values), key_(keys_.key_size(), '\0') {}
    GetResult Get(uint64_t key_number);
    // One MemTable::MultiGet.
    void GetBatch(std::span<const uint32_t> key_numbers, GetResult* out);

   private:
    const MemTable& table_;
    const KeyCodec& keys_;
    const ValuePool& values_;
    std::string key_;
    std::string value_;
    // GetBatch's keys, one after another, their views, values and statuses.
    std::string batch_keys_;
    std::vector<std::string_view> batch_views_;
    std::vector<std::string> batch_values_;
    std::vector<Status> batch_statuses_;
  };

  class Cursor : public IteratorCursor<MemTable> {
   public:
    Cursor(TableFace& face, const WorkloadInput& in)
        : IteratorCursor<MemTable>(face.table_, *in.keys) {}
  };

  void Freeze() {
    // A rep that converts nothing at Freeze always says OK; a failed
    // conversion leaves the table frozen and readable, which is all the
    // read workloads need.
    (void)table_.Freeze();
  }

  // MemTable::MemoryUsage(): the arena's whole blocks plus the rep's own, so
  // there is no separate count of reserved blocks (arena_reserved_bytes 0).
  void MeasureMemory(uint64_t entries, Measurement* m) {
    m->entries = entries;
    m->memory_bytes = table_.MemoryUsage();
    m->arena_reserved_bytes = 0;
  }

 private:
  MemTable& table_;
};

// Opens a MemTable for a memrep factory's rep or a standalone peer (its
// options string and write_buffer_size; --arena_block_size), as the
// standalone face runs it.
Status OpenStandaloneTable(const RepFactory& factory, const Flags& flags,
                           std::unique_ptr<MemTable>* out);

// RunWorkload for a memrep rep or a standalone peer under --face=standalone:
// a new MemTable, its untimed fill (read and mixed workloads), the timed
// phase and its checks, memory, destruction. REQUIRES: factory.memrep() or
// factory.standalone_peer(), and the workload not skipped for it (SkipReason).
Measurement RunStandaloneWorkload(const WorkloadInfo& workload, const RepFactory& factory,
                                  const WorkloadInput& input);

// The pieces of RunStandaloneWorkload, for tests (FillDataSet's and
// RunPhase's counterparts): the data set written into `table` (untimed), and
// the timed phase of `workload` on `table` as it is, then its checks.
Status FillStandaloneDataSet(MemTable& table, const WorkloadInput& input);
Measurement RunStandalonePhase(const WorkloadInfo& workload, MemTable& table,
                               const WorkloadInput& input);

// The table's note on RocksDB's reps under --face=standalone: they run at the
// rep level, with rows.
inline constexpr const char* kRepLevelNote = "rep level: rows";

}  // namespace memrep::bench
