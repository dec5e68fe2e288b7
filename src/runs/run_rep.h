// RunRep: the base of the reps built on sorted runs, which hold every row in
// a RowRegion and every row's order in a RunIndex:
//
//   RunRep ── RowRegion  rows, each behind its node's write-list link
//          ├─ RunIndex   write list, sorted runs cut and merged on the rep's
//          │             background strand ◄── iterators, samples, counts
//          ├─ Make, the background pool, the batch-append skeleton
//          └─ GetRows: a seek among the runs of a RunIndex view
//     SortedHashRep  + HashIndex (Get, Contains, duplicates at insert)
//     ColumnarRep    + ColumnIndex and the writer regions' link queues
//     VectorRep      nothing more: Get searches the runs
//
// A rep derives from it and keeps only its own index; the overrides marked
// final are the same for each. The per-row paths (Allocate, the batch
// skeleton) are templates inlined into each rep: no virtual call is added.
//
// Thread safety: as Rep (memrep/rep.h). Writers touch only their region
// chunk and their write-list shard; readers take the run index's mutexes
// briefly to take a view (runs/run_index.h says when).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>

#include "format/key_order.h"
#include "memory/row_region.h"
#include "memrep/rep.h"
#include "runs/run_index.h"

namespace memrep::runs {

class RunRep : public Rep {
 public:
  // Closes the run index: its background tasks stop touching the region.
  ~RunRep() override;

  // A seek among the runs of a RunIndex view (point filters let it skip the
  // runs that cannot hold the key); reps with an index of their own override
  // it and Contains.
  void GetRows(std::string_view internal_key, void* arg, RowCallback callback) const override;
  bool Contains(std::string_view internal_key) const override;  // through RunRep::GetRows
  Status RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const final {
    return runs_->RandomSample(target, seed, out);
  }
  std::unique_ptr<RepIterator> NewIterator() const final;
  void Freeze() final { runs_->Freeze(); }
  bool frozen() const final { return runs_->frozen(); }
  // The region's chunk table, charged as it grows, and the runs, as they are
  // built, with what sorting after Freeze needs fixed at Freeze
  // (RunIndex::ChargedBytes), so that the figure never grows after Freeze;
  // nodes come from the Allocator, which counts them. A rep adds its index.
  size_t MemoryUsage() const override { return region_.TableBytes() + runs_->ChargedBytes(); }
  bool NearlyFull() const final { return region_.NearlyFull(); }
  uint64_t NumEntries() const final { return runs_->Count(); }
  uint64_t BackgroundCpuNanos() const final { return runs_->BackgroundCpuNanos(); }
  uint64_t ApproximateNumEntries(std::string_view start, std::string_view end) const final {
    return runs_->CountBetween(start, end);
  }

  // For tests and benchmarks: the number of sorted runs now, the bytes they
  // hold (MemoryUsage charges the most the published ones have held), and
  // the bytes of node chunks and of the region's chunk table.
  size_t NumRuns() const { return runs_->NumRuns(); }
  size_t RunBytes() const { return runs_->RunBytes(); }
  size_t NodeBytes() const { return region_.ChunkBytes(); }
  size_t ChunkTableBytes() const { return region_.TableBytes(); }

 protected:
  // A region of nodes of header_bytes (beginning with the write-list link)
  // before each row, chunks of up to chunk_bytes, region_bytes of address
  // space in units of unit_bytes (RowRegion); the run index on the
  // process-wide background pool.
  RunRep(const RepContext& context, const RunIndexOptions& run_options, size_t chunk_bytes,
         size_t header_bytes, uint64_t region_bytes, size_t unit_bytes = RowRegion::kUnit);

  // Make's steps: new_rep() makes the rep (bad_alloc: OutOfMemory with
  // `no_memory`), its region and then its index are set up (InitIndex), and
  // *out takes it.
  template <typename New>
  static Status MakeRep(const char* no_memory, const RepContext& context, std::unique_ptr<Rep>* out,
                        New&& new_rep) {
    std::unique_ptr<RunRep> rep;
    try {
      rep.reset(new_rep());
    } catch (const std::bad_alloc&) {
      return Status::OutOfMemory(no_memory);
    }
    rep->region_.GrowChunks();
    Status s = rep->region_.Init();
    if (s.ok()) s = rep->InitIndex(context.allocator);
    if (!s.ok()) return s;
    *out = std::move(rep);
    return Status::OK();
  }

  // The handle Allocate hands out is the node's reference (never 0), not a
  // pointer: a pointer cannot be turned back into a reference.
  static KeyHandle HandleOf(RowRef ref) {
    return reinterpret_cast<KeyHandle>(static_cast<uintptr_t>(ref));
  }
  static RowRef RefOf(KeyHandle handle) {
    return static_cast<RowRef>(reinterpret_cast<uintptr_t>(handle));
  }

  // Allocate's steps: a node for a row of len bytes; start_row(ref) places
  // the rep's header in it and returns where the row goes.
  template <typename StartRow>
  Status AllocateRow(size_t len, KeyHandle* handle, char** row, StartRow&& start_row) {
    RowRef ref;
    Status s = region_.Allocate(len, &ref);
    if (!s.ok()) return s;
    *row = start_row(ref);
    *handle = HandleOf(ref);
    return Status::OK();
  }

  // The nodes a batch stored, chained newest first through their write-list
  // links as they are stored, for one RunIndex::PushChain.
  class BatchChain {
   public:
    // `node` is ref's node, whose write-list link is written: plain, before
    // the release operation of PushChain that publishes it (write_list.h).
    void Append(RowRef ref, void* node) {
      // Each node's link names the one before it; PushChain links the first.
      if (newest_ != 0) std::memcpy(node, &newest_, WriteList::kLinkBytes);
      if (oldest_ == 0) oldest_ = ref;
      newest_ = ref;
      ++count_;
    }
    // Pushes the chain, if any, on the write list, and starts a new one.
    void Push(RunIndex& runs, bool exclusive) {
      if (count_ > 0) runs.PushChain(newest_, oldest_, count_, exclusive);
      *this = BatchChain();
    }

   private:
    RowRef newest_ = 0;
    RowRef oldest_ = 0;
    size_t count_ = 0;
  };

  // What Batch::Hold returns for a rep that holds nothing while it stores.
  struct NoHold {};

  // The batch-append skeleton (AddBatch). The entries go in chunks of
  // batch.chunk(): batch.Prepare(chunk) puts each row's size in batch.sizes
  // (and may start loading what storing it reads), the chunk's nodes are
  // reserved together (RowRegion::AllocateMany, into batch.refs), and
  // batch.Store(chunk, first, allocated, chain, s) writes the allocated ones
  // in order, appending each it stores to `chain`, and returns how many it
  // stored: it stops at the first it refuses, saying why in *s. The chain
  // is pushed on the write list after each chunk (Batch::kPushEachChunk;
  // then batch.Pushed()), else once at the end, after what batch.Hold()
  // returned (held while the entries are stored) is released. A chunk
  // stored short ends the batch. Returns how many entries were stored; *s
  // says why the rest were not.
  template <typename Batch>
  size_t AppendBatch(std::span<const EntryView> entries, bool concurrent, Batch& batch, Status* s) {
    BatchChain chain;
    size_t stored = 0;
    {
      [[maybe_unused]] auto hold = batch.Hold();
      const size_t chunk_size = batch.chunk();
      for (size_t first = 0; first < entries.size(); first += chunk_size) {
        const std::span<const EntryView> chunk =
            entries.subspan(first, std::min(chunk_size, entries.size() - first));
        batch.Prepare(chunk);
        size_t allocated = 0;
        *s = region_.AllocateMany(batch.sizes, chunk.size(), batch.refs, &allocated);
        const size_t n = batch.Store(chunk, first, allocated, chain, s);
        stored += n;
        if constexpr (Batch::kPushEachChunk) {
          chain.Push(*runs_, /*exclusive=*/!concurrent);
          batch.Pushed();
        }
        if (n < chunk.size()) break;
      }
    }
    chain.Push(*runs_, /*exclusive=*/!concurrent);
    return stored;
  }

  const format::KeyOrder order_;
  memory::RowRegion region_;
  std::shared_ptr<RunIndex> runs_;  // shared with background tasks

 private:
  // Make's last step: the rep's own index takes its first memory from
  // `allocator`. The default: a rep with no index.
  virtual Status InitIndex(Allocator* /*allocator*/) { return Status::OK(); }
};

}  // namespace memrep::runs
