// SortedHashRep: the sorted hash memtable representation.
//
//            insert ──► HashIndex  (lock-free chains, full user key) ◄── Get, Contains
//               │
//               └────► RunIndex   (write list, sorted runs cut and merged on
//                                  the rep's background strand) ◄── iterators
//
// The RunIndex, the RowRegion and what they serve are runs::RunRep's; this
// rep adds the HashIndex. Rows live in the RowRegion behind an 8-byte Node
// (node.h); both the hash chains and the write list link nodes by 4-byte
// references.
//
// Thread safety: as Rep (memrep/rep.h). Writers touch only their bucket chain
// and their write-list shard: no lock, and no cache line all writers share.
// Readers take no lock for Get; an iterator takes the run index's mutexes
// briefly to take a view (runs/run_index.h says when).
#pragma once

#include <memory>

#include "memrep/sorted_hash.h"
#include "runs/run_rep.h"
#include "sorted_hash/hash_index.h"

namespace memrep::sorted_hash {

class SortedHashRep final : public runs::RunRep {
 public:
  // REQUIRES: options.Validate().ok(), context.allocator != nullptr.
  // region_bytes: the address space of the rep's RowRegion (tests set less).
  static Status Make(const SortedHashOptions& options, const RepContext& context,
                     std::unique_ptr<Rep>* out,
                     uint64_t region_bytes = memory::RowRegion::kMaxBytes);

  Status Allocate(size_t len, KeyHandle* handle, char** row) override;
  bool Insert(KeyHandle handle) override { return InsertRow(handle, /*exclusive=*/true); }
  bool InsertConcurrently(KeyHandle handle) override { return InsertRow(handle, false); }
  void GetRows(std::string_view internal_key, void* arg, RowCallback callback) const override;
  // Get's chain walks, several keys' bucket and first-node loads in flight.
  void MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                MultiEntryCallback callback) const override;
  // The rows of other keys in the key's bucket chains (HashIndex).
  void ProbedRows(std::string_view internal_key, void* arg, RowCallback callback) const override;
  void MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                    MultiRowCallback callback) const override;  // as MultiGet
  bool Contains(std::string_view internal_key) const override;
  // The batch's nodes reserved together (RowRegion::AllocateMany), the index
  // inserts pipelined with prefetches, the write list pushed once per chunk.
  Status AddBatch(std::span<const EntryView> entries, bool concurrent) override;
  // RunRep's, and the buckets: taken from the Allocator, which counts them
  // (a bucket array too big for it is mapped, and charged here), as the
  // index grows (HashIndex).
  size_t MemoryUsage() const override { return RunRep::MemoryUsage() + index_.MappedBytes(); }

  // For tests and benchmarks (and RunRep's): the bytes of buckets taken from
  // the Allocator, and the index's tables.
  size_t BucketBytes() const { return index_.bytes(); }
  int NumIndexTables() const { return index_.NumTables(); }

 private:
  struct Batch;  // AddBatch's steps (RunRep::AppendBatch)

  bool InsertRow(KeyHandle handle, bool exclusive);
  SortedHashRep(const SortedHashOptions& options, const RepContext& context, uint64_t region_bytes);
  Status InitIndex(Allocator* allocator) override { return index_.Init(allocator); }

  HashIndex index_;
};

// The bucket count a rep of these options starts with for a memtable known
// to hold write_buffer_size bytes (its index grows from there as the rows
// outgrow it; with the size unknown it starts from HashIndex::kFirstBuckets).
using concurrency::EffectiveBucketCount;

}  // namespace memrep::sorted_hash
