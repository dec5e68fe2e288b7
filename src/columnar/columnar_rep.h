// ColumnarRep: the columnar memtable representation.
//
//   insert ──► writer region (one per thread slot): its active block of
//              columns and its byte chunk (append; no lock, no shared line)
//         └──► the region's LinkQueue ──(kDepth inserts later, the bucket
//              prefetched meanwhile)──► ColumnIndex: user key → newest version
//   Get ◄───── the queues that hold entries, then ColumnIndex and the version
//              chain (sequence descending), merged
//   full block ─► sealed in O(1) ─► strand: radix sort ─► sorted blocks,
//                                    merged to at most max_sorted_blocks
//   iterators ◄── sorted blocks + the pending entries, sorted once per change
//
// In the RocksDB face, rows are written by RocksDB into the writer region's
// byte chunk (behind a 4-byte header naming the entry reserved for them) and
// the columns point into them; in the standalone face the chunk holds the key
// bytes followed by the value bytes, and there are no rows.
//
// Thread safety: as Rep (memrep/rep.h). A writer holds its region
// (writer_region.h: an uncontended flag on the region's own cache line) while
// it reserves an entry, copies bytes and queues or links entries; the index
// insert is lock-free.
// Readers take no lock for Get; an iterator takes BlockSets' mutexes briefly
// to take a view. Duplicates: kInBatch (rep/batch_duplicates.h); the index
// is not consulted at insert time, that is the point of the queue.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>

#include "columnar/block_set.h"
#include "columnar/column_index.h"
#include "columnar/columns.h"
#include "columnar/link_queue.h"
#include "columnar/writer_region.h"
#include "format/key_order.h"
#include "memrep/columnar.h"
#include "memrep/rep.h"

namespace memrep::columnar {

// The sizes a rep of these options uses for a memtable of write_buffer_size
// bytes: entries per block and index buckets (powers of two).
uint32_t EffectiveBlockSize(const ColumnarOptions& options, uint64_t write_buffer_size);
uint64_t EffectiveBucketCount(const ColumnarOptions& options, uint64_t write_buffer_size);

class ColumnarRep final : public Rep {
 public:
  // REQUIRES: options.Validate().ok(), context.allocator != nullptr.
  static Status Make(const ColumnarOptions& options, const RepContext& context,
                     std::unique_ptr<Rep>* out);
  ~ColumnarRep() override;

  // Rows (the RocksDB face).
  Status Allocate(size_t len, KeyHandle* handle, char** row) override;
  bool Insert(KeyHandle handle) override { return InsertRow(handle); }
  bool InsertConcurrently(KeyHandle handle) override { return InsertRow(handle); }
  void GetRows(std::string_view internal_key, void* arg, RowCallback callback) const override;
  bool Contains(std::string_view internal_key) const override;
  Status RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const override;

  // Views (the standalone face).
  Status Add(const EntryView& entry, bool concurrent) override;
  // One region claim for the whole batch; index probes pipelined with prefetches.
  Status AddBatch(std::span<const EntryView> entries, bool concurrent) override;
  void Get(std::string_view internal_key, void* arg, EntryCallback callback) const override;
  void MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                MultiEntryCallback callback) const override;

  std::unique_ptr<RepIterator> NewIterator() const override;
  // Nothing to link: a link may need an overflow bucket, and memory must not
  // grow once frozen (RocksDB counts it as the memtable turns immutable);
  // the queued entries stay where Gets find them.
  void Freeze() override { sets_->Freeze(); }
  bool frozen() const override { return sets_->frozen(); }
  size_t MemoryUsage() const override;
  bool NearlyFull() const override;
  uint64_t NumEntries() const override;
  uint64_t ApproximateNumEntries(std::string_view start, std::string_view end) const override;

  // For tests and benchmarks.
  size_t NumSortedBlocks() const { return sets_->Current()->sorted.size(); }
  size_t NumPendingBlocks() const { return sets_->Current()->pending.size(); }
  size_t SortedBytes() const { return sets_->SortedBytes(); }
  uint64_t BackgroundNanos() const { return sets_->BackgroundNanos(); }
  uint32_t block_size() const { return table_.capacity(); }
  uint64_t OverflowBuckets() const { return index_.overflow_buckets(); }

  // MemoryUsage charges this many bytes per entry in advance for the sorted
  // blocks and a merge's second copy, so that it never grows after Freeze.
  static constexpr size_t kChargedSortBytesPerEntry = 2 * SortedBlock::kMaxBytesPerEntry;

 private:
  ColumnarRep(const ColumnarOptions& options, const RepContext& context,
              uint64_t write_buffer_size);
  // The next entry of the region's block (a new block when full); sets *ref.
  Status Reserve(WriterRegion& region, EntryRef* ref, Block** block);
  Status TableFull() const;
  // Block numbers handed out, plus one (numbers start at 1).
  uint32_t UsedBlocks() const {
    return std::min(next_block_.load(std::memory_order_relaxed), table_.mapped_blocks());
  }
  // Fills entry i of `block`'s columns (a key at `key`, in memory that stays).
  void Fill(Block* block, uint32_t i, const char* key, uint32_t key_len, uint64_t tag,
            uint32_t value_len);
  // Whether this thread stored the entry's (user key, sequence) before, in
  // this run of inserts at one sequence: OK, or AlreadyExists / OutOfMemory.
  Status Admit(const Meta& meta) const;
  // Room in the held region's queue for one more entry: links the oldest
  // one if it is full. false: that needed an overflow bucket of the index
  // and none could be had (nothing changed).
  bool MakeRoom(WriterRegion& region) { return !region.queue.full() || LinkOldest(region); }
  bool LinkOldest(WriterRegion& region);
  // Queues the ready entry `ref` on the held region (MakeRoom made room) and
  // loads its index bucket for the link to come.
  void Enqueue(WriterRegion& region, EntryRef ref, uint64_t hash);
  // An entry written to its region but not yet published (ready, queued).
  struct Staged {
    Block* block;
    EntryRef ref;
    uint64_t hash;
  };
  // Writes `entry` into the held region and, if `admit`, checks it for a
  // duplicate: OK (then Finish publishes it), or why not (nothing is published).
  Status Stage(WriterRegion& region, const EntryView& entry, bool admit, Staged* out);
  // Marks the staged entry ready, counts it and queues it on the held
  // region. exclusive: as Block::Resolve (the standalone face: the block is
  // the held region's). REQUIRES: MakeRoom(region) returned true.
  void Finish(WriterRegion& region, const Staged& staged, bool exclusive = true);
  static Status NoOverflowBucket();
  bool InsertRow(KeyHandle handle);
  // Calls fn(ref) on the versions of the lookup key's user key at and after
  // it (sequence <= the key's), newest first, until fn returns false.
  template <typename Fn>
  void ForVersions(std::string_view internal_key, uint64_t hash, Fn&& fn) const;
  // Versions of `user_key` in the link queues (see link_queue.h), newest
  // first, into out[]; returns how many.
  size_t QueuedVersions(std::string_view user_key, uint64_t hash, EntryRef* out) const;

  const format::KeyOrder order_;
  Allocator* const allocator_;
  const bool rows_;
  BlockTable table_;
  ColumnIndex index_;
  WriterRegions regions_;
  // Bit i: region i's queue has held entries. Set by the region's holder
  // before its first push and never cleared: a reader that loads the word
  // after an insert returned sees the bit of its region.
  static constexpr uint32_t kQueuedWords = ColumnarOptions::kMaxShards / 64;
  std::atomic<uint64_t> queued_[kQueuedWords] = {};
  const uint64_t owner_;  // this rep's number for rep::BatchDuplicates
  // Block numbers handed out (from 1). relaxed: a counter; the block table
  // publishes blocks.
  std::atomic<uint32_t> next_block_{1};
  std::shared_ptr<BlockSets> sets_;  // shared with background tasks
};

}  // namespace memrep::columnar
