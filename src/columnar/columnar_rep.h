// ColumnarRep: the columnar memtable representation: a hash index over the
// rows of a RowRegion for point reads, and a RunIndex over the same rows for
// ordered reads.
//
//   insert ──► RowRegion: the writer thread's chunk  [list|older|row] (node.h)
//         ├──► the writer region's LinkQueue ──(kDepth inserts later, the
//         │    bucket prefetched meanwhile)──► ColumnIndex: user key → newest
//         │    version, versions chained newest first through `older`
//         └──► RunIndex: the writer thread's write-list shard (one CAS)
//   Get ◄───── the queues that hold entries, then ColumnIndex and the version
//              chain (sequence descending), merged
//   iterators, flush ◄── the RunIndex's sorted runs and its sorted tail
//                        (runs/run_index.h: cut, merged and frozen into one
//                        run on the rep's background strand)
//
// The RunIndex, the RowRegion and what they serve are runs::RunRep's; this
// rep adds the ColumnIndex and the writer regions.
//
// Rows are RocksDB's row format in both faces: RocksDB writes them into the
// node Allocate hands out; the standalone face encodes its views into them.
//
// Thread safety: as Rep (memrep/rep.h). A writer allocates from its thread
// slot's RowRegion shard, holds its writer region (writer_region.h: an
// uncontended flag on the region's own cache line) while it queues its
// entry and links an older one (lock-free CASes on the index), and pushes
// the node on its thread slot's write-list shard: no lock, no cache line all
// writers share. Readers take no lock for Get; an iterator takes the run
// index's mutexes briefly to take a view. Duplicates: kSameThread
// (rep/batch_duplicates.h); the index is not consulted at insert time, that
// is the point of the queue.
#pragma once

#include <atomic>
#include <memory>

#include "columnar/column_index.h"
#include "columnar/link_queue.h"
#include "columnar/node.h"
#include "columnar/writer_region.h"
#include "memrep/columnar.h"
#include "runs/run_rep.h"

namespace memrep::columnar {

// The index buckets a rep of these options uses for a memtable of
// write_buffer_size bytes.
using concurrency::EffectiveBucketCount;
// The RunIndex options a rep of these options uses.
runs::RunIndexOptions RunOptionsOf(const ColumnarOptions& options);

class ColumnarRep final : public runs::RunRep {
 public:
  // REQUIRES: options.Validate().ok(), context.allocator != nullptr.
  // region_bytes: the address space of the rep's RowRegion (tests set less).
  static Status Make(const ColumnarOptions& options, const RepContext& context,
                     std::unique_ptr<Rep>* out,
                     uint64_t region_bytes = RowRegion::MaxBytes(kNodeUnitBytes));

  // Rows (the RocksDB face).
  Status Allocate(size_t len, KeyHandle* handle, char** row) override;
  bool Insert(KeyHandle handle) override { return InsertRow(handle, /*exclusive=*/true); }
  bool InsertConcurrently(KeyHandle handle) override { return InsertRow(handle, false); }
  void GetRows(std::string_view internal_key, void* arg, RowCallback callback) const override;
  bool Contains(std::string_view internal_key) const override;
  // The rows of other keys whose fingerprint matches the key's, in the
  // write queues and the index.
  void ProbedRows(std::string_view internal_key, void* arg, RowCallback callback) const override;

  // Views (the standalone face): encoded into rows; Get decodes them (Rep's
  // default, through GetRows).
  Status Add(const EntryView& entry, bool concurrent) override;
  // One region claim for the whole batch; index probes pipelined with
  // prefetches; one write-list push.
  Status AddBatch(std::span<const EntryView> entries, bool concurrent) override;
  void MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                MultiEntryCallback callback) const override;
  void MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                    MultiRowCallback callback) const override;  // as MultiGet

  // Freeze (RunRep's) links nothing: a link may need an overflow bucket, and
  // memory must not grow once frozen (RocksDB counts it as the memtable
  // turns immutable); the queued entries stay where Gets find them.
  // MemoryUsage: RunRep's, the bucket array, charged in full from the start
  // (overflow buckets are the row region's chunks), and the writer regions.
  size_t MemoryUsage() const override {
    return index_.MappedBytes() + RunRep::MemoryUsage() + regions_.bytes();
  }

  // For tests and benchmarks (and RunRep's).
  size_t IndexBytes() const { return index_.bytes(); }
  int NumIndexTables() const { return index_.NumTables(); }
  uint64_t OverflowBuckets() const { return index_.overflow_buckets(); }

 private:
  struct Batch;  // AddBatch's steps (RunRep::AppendBatch)

  ColumnarRep(const ColumnarOptions& options, const RepContext& context, uint64_t region_bytes);
  Status InitIndex(Allocator* allocator) override { return index_.Init(allocator); }
  // BatchDuplicates::Admit, as a Status: OK, or
  // AlreadyExists (a duplicate) / OutOfMemory (not checked). REQUIRES:
  // user_key is a stored row's (BatchDuplicates keeps it).
  Status Admit(std::string_view user_key, uint64_t tag) const;
  // Room in the held region's queue for one more entry: links the oldest
  // one if it is full. false: that needed an overflow bucket of the index
  // and none could be had (nothing changed).
  bool MakeRoom(WriterRegion& region) { return !region.queue.full() || LinkOldest(region); }
  bool LinkOldest(WriterRegion& region);
  // Queues the complete node `ref` on the held region (MakeRoom made room)
  // and loads its index bucket for the link to come.
  void Enqueue(WriterRegion& region, RowRef ref, uint64_t hash);
  static Status NoOverflowBucket();
  bool InsertRow(KeyHandle handle, bool exclusive);
  // Calls fn(ref) on the versions of the lookup key's user key at and after
  // it (sequence <= the key's), newest first, until fn returns false.
  template <typename Fn>
  void ForVersions(std::string_view internal_key, uint64_t hash, Fn&& fn) const;
  // ForVersions for a batch of keys, index probes pipelined with prefetches:
  // on_row(i, row) on key i's versions (MultiGet, MultiGetRows).
  template <class OnRow>
  void ForVersionsOfMany(std::span<const std::string_view> internal_keys, OnRow&& on_row) const;
  // Calls fn(ref) on every entry in the link queues (see link_queue.h)
  // whose fingerprint is hash's.
  template <typename Fn>
  void ForEachQueued(uint64_t hash, Fn&& fn) const;
  // Versions of `user_key` in the link queues, newest first, into out[];
  // returns how many.
  size_t QueuedVersions(std::string_view user_key, uint64_t hash, RowRef* out) const;
  const Node* NodeOf(RowRef ref) const { return NodeAt(region_, ref); }

  const uint64_t owner_;  // this rep's number for rep::BatchDuplicates
  ColumnIndex index_;
  WriterRegions regions_;
  // Bit i: region i's queue has held entries. Set by the region's holder
  // before its first push and never cleared: a reader that loads the word
  // after an insert returned sees the bit of its region.
  static constexpr uint32_t kQueuedWords = ColumnarOptions::kMaxShards / 64;
  std::atomic<uint64_t> queued_[kQueuedWords] = {};
};

}  // namespace memrep::columnar
