// SortedHashRep: the sorted hash memtable representation.
//
//            insert ──► HashIndex  (lock-free chains, full user key) ◄── Get, Contains
//               │
//               └────► RunIndex   (write list, sorted runs cut and merged on
//                                  the rep's background strand) ◄── iterators
//
// Rows live in the rep's RowRegion behind an 8-byte Node (node.h); both the
// hash chains and the write list link nodes by 4-byte references.
//
// Thread safety: as Rep (memrep/rep.h). Writers touch only their bucket chain
// and their write-list shard: no lock, and no cache line all writers share.
// Readers take no lock for Get; an iterator takes the run index's mutexes
// briefly to take a view (runs/run_index.h says when).
#pragma once

#include <memory>

#include "format/key_order.h"
#include "memory/row_region.h"
#include "memrep/rep.h"
#include "memrep/sorted_hash.h"
#include "runs/run_index.h"
#include "sorted_hash/hash_index.h"

namespace memrep::sorted_hash {

class SortedHashRep final : public Rep {
 public:
  // REQUIRES: options.Validate().ok(), context.allocator != nullptr.
  // region_bytes: the address space of the rep's RowRegion (tests set less).
  static Status Make(const SortedHashOptions& options, const RepContext& context,
                     std::unique_ptr<Rep>* out,
                     uint64_t region_bytes = memory::RowRegion::kMaxBytes);
  ~SortedHashRep() override;

  Status Allocate(size_t len, KeyHandle* handle, char** row) override;
  bool Insert(KeyHandle handle) override { return InsertRow(handle, /*exclusive=*/true); }
  bool InsertConcurrently(KeyHandle handle) override { return InsertRow(handle, false); }
  void GetRows(std::string_view internal_key, void* arg, RowCallback callback) const override;
  // Get's chain walks, several keys' bucket and first-node loads in flight.
  void MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                MultiEntryCallback callback) const override;
  void MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                    MultiRowCallback callback) const override;  // as MultiGet
  bool Contains(std::string_view internal_key) const override;
  // The batch's nodes reserved together (RowRegion::AllocateMany), the index
  // inserts pipelined with prefetches, the write list pushed once per chunk.
  Status AddBatch(std::span<const EntryView> entries, bool concurrent) override;
  Status RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const override;
  std::unique_ptr<RepIterator> NewIterator() const override;
  void Freeze() override { runs_->Freeze(); }
  bool frozen() const override { return runs_->frozen(); }
  size_t MemoryUsage() const override;
  bool NearlyFull() const override { return region_.NearlyFull(); }
  uint64_t NumEntries() const override { return runs_->Count(); }
  uint64_t BackgroundCpuNanos() const override { return runs_->BackgroundCpuNanos(); }
  uint64_t ApproximateNumEntries(std::string_view start, std::string_view end) const override {
    return runs_->CountBetween(start, end);
  }

  // For tests and benchmarks: the number of sorted runs now, the bytes they
  // hold (MemoryUsage charges the most the published ones have held), the
  // bytes of node chunks and of buckets taken from the Allocator, and the
  // index's tables.
  size_t NumRuns() const { return runs_->NumRuns(); }
  size_t RunBytes() const { return runs_->RunBytes(); }
  size_t NodeBytes() const { return region_.ChunkBytes(); }
  size_t ChunkTableBytes() const { return region_.TableBytes(); }
  size_t BucketBytes() const { return index_.bytes(); }
  int NumIndexTables() const { return index_.NumTables(); }

 private:
  bool InsertRow(KeyHandle handle, bool exclusive);
  SortedHashRep(const SortedHashOptions& options, const RepContext& context,
                uint64_t write_buffer_size, uint64_t region_bytes);

  const format::KeyOrder order_;
  memory::RowRegion region_;
  HashIndex index_;
  std::shared_ptr<runs::RunIndex> runs_;  // shared with background tasks
};

// The bucket count a rep of these options starts with for a memtable known
// to hold write_buffer_size bytes (its index grows from there as the rows
// outgrow it; with the size unknown it starts from HashIndex::kFirstBuckets).
uint64_t EffectiveBucketCount(const SortedHashOptions& options, uint64_t write_buffer_size);

}  // namespace memrep::sorted_hash
