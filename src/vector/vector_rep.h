// VectorRep: the vector memtable representation, an append-only log of rows
// with sorted runs cut from it for reads.
//
//   insert ──► RowRegion: the writer's chunk   [link|row][link|row]...
//                 │ (append; no comparison, no hash)
//                 └──► RunIndex: the writer's write-list shard (one CAS)
//   readers ◄── sorted runs + the newest rows, sorted once and shared
//   Freeze ───► the strand sorts everything into one run; flush = one array
//
// Each row lives in the rep's RowRegion behind the 4-byte write-list link
// (its only header). A point read is a seek among the runs of a RunIndex
// view: O(log n) per run, plus sorting the rows that arrived since the last
// reader (kept and shared). Duplicates are found the way RocksDB makes them
// (rep/batch_duplicates.h).
//
// Thread safety: as Rep (memrep/rep.h). Writers touch only their chunk and
// their write-list shard: no lock, no cache line all writers share. Readers
// take the run index's mutexes briefly to take a view (runs/run_index.h).
#pragma once

#include <memory>

#include "memrep/vector.h"
#include "rep/batch_duplicates.h"
#include "runs/run_rep.h"

namespace memrep::vector {

// GetRows, Contains and the rest of Rep: runs::RunRep's.
class VectorRep final : public runs::RunRep {
 public:
  // REQUIRES: options.Validate().ok(), context.allocator != nullptr.
  // region_bytes: the address space of the rep's RowRegion (tests set less).
  static Status Make(const VectorOptions& options, const RepContext& context,
                     std::unique_ptr<Rep>* out,
                     uint64_t region_bytes = memory::RowRegion::MaxBytes(4));

  Status Allocate(size_t len, KeyHandle* handle, char** row) override;
  bool Insert(KeyHandle handle) override { return Append(handle, /*exclusive=*/true); }
  bool InsertConcurrently(KeyHandle handle) override { return Append(handle, false); }

  // One reservation and one write-list CAS for a whole batch.
  Status AddBatch(std::span<const EntryView> entries, bool concurrent) override;
  Status Add(const EntryView& entry, bool concurrent) override;

 private:
  struct Batch;  // AddBatch's steps (RunRep::AppendBatch)

  bool Append(KeyHandle handle, bool exclusive);
  // BatchDuplicates::Admit for a complete row.
  rep::BatchDuplicates::Result AdmitRow(const char* row) const;
  // The same as a Status: AlreadyExists (a duplicate) or OutOfMemory (not
  // checked) store nothing.
  Status Admit(const char* row, SequenceNumber sequence) const;
  VectorRep(const VectorOptions& options, const RepContext& context, uint64_t region_bytes);

  const uint64_t owner_;  // this rep's number for BatchDuplicates
};

// The chunk size of a vector rep of these options, for a memtable of
// write_buffer_size bytes (0: unknown).
size_t ChunkBytes(const VectorOptions& options, uint64_t write_buffer_size);

}  // namespace memrep::vector
