// RowRegion: where a rep keeps its rows, each behind a header of the rep's
// own (its links), addressed by 32-bit references, so a link costs 4 bytes
// where a pointer costs 8. This is the row layer every rep can share: the
// RocksDB face's Allocate is one call here, and a rep then only indexes.
//
//   chunks:  memory taken from the rep's Allocator (RocksDB's memtable arena,
//            so RocksDB and its WriteBufferManager count it as they count
//            the skip list's nodes), chunk_bytes at a time; or, once
//            GrowChunks was called (the reps do), 1 KiB at first, then 1/128
//            of what the region holds, up to chunk_bytes, so that a memtable
//            of a few rows holds about what a skip list's would
//   table:   [ 0 ][ base1 ][ base2 ] ...  chunk index -> chunk memory
//   ref r:   chunk index (high bits) | offset in units of 8 or 4 bytes (low bits);
//            node = table[r >> shift] + (r & mask) * unit; chunk 0 is never
//            used, so ref 0 means none
//   node:    [ header (header_bytes) | row ... ]   Row(r) = At(r) + header_bytes
//   thread slots: ThreadChunks (thread_chunks.h): the free part of the
//            chunk the slot's threads fill, [cursor, end) in refs
//
// A node bigger than a quarter chunk gets an allocation of its own, entered
// in one chunk slot however big it is: only the node's start is ever named
// by a reference, so a big value uses one slot of the address space, not its
// size.
//
// Thread safety: Allocate from any thread. Each thread allocates from the
// chunk of its thread slot (ThreadChunks: a CAS on its own line, which
// threads only contend on when their slots collide); a slot takes a new
// chunk (one CAS for its index, one allocation, one add to the bytes) once
// per chunk, not per node, under its refill lock. At from any thread, for a
// ref whose node that thread has seen published.
// Invariants:
//  1. Chunks are chunk_units_ long in ref space and start at multiples of it,
//     so a cursor strictly inside a chunk, or at its end, names the chunk.
//  2. A chunk's table slot is written once, before any ref into it is handed
//     out: before the chunk is installed in a thread slot, whose carves read
//     it with acquire (ThreadChunks, invariant 4), so a thread that carves
//     from a chunk another thread of its slot took sees the table slot.
//     Refs reach other threads only inside published nodes (release stores
//     the reader pairs with acquire loads), so a reader that follows a ref
//     also sees the slot. A table slot is never rewritten.
//  3. Refs of chunk ends fit ThreadChunks' 32-bit positions: the last chunk
//     ends below 2^32 units (one chunk of the address space is left unused
//     for it).
// Limits: max_bytes of address space (at most 2^32 units: 32 GiB, or 16 GiB
// with 4-byte units). Past half
// of it NearlyFull() is true, so the memtable gets switched while writes in
// flight still fit; past all of it Allocate fails with Full.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "memory/thread_chunks.h"
#include "memrep/rep.h"
#include "memrep/status.h"

namespace memrep::memory {

using RowRef = uint32_t;  // 0 is null

class RowRegion {
 public:
  // The unit a reference counts in: 8 bytes (nodes aligned for 8-byte
  // fields, 32 GiB of address space) unless a rep asks for 4 (nodes aligned
  // for 4-byte fields, 16 GiB: a rep whose header is one 4-byte link saves
  // up to 4 bytes of padding a row).
  static constexpr size_t kUnit = 8;
  static constexpr uint64_t kMaxBytes = (uint64_t{1} << 32) * kUnit;  // 32 GiB
  // The first chunks' memory, and the share of what the region holds that
  // later ones take (up to chunk_bytes).
  static constexpr uint64_t kMinChunkBytes = 1024;
  static constexpr uint64_t kChunkGrowth = 128;
  static constexpr uint64_t MaxBytes(size_t unit) { return (uint64_t{1} << 32) * unit; }

  // chunk_bytes: the most a shard takes at a time (and the address space of
  // a chunk's slot), a power of two of at least 4 KiB. header_bytes: the rep's header in front of
  // each row (a multiple of 4). max_bytes: the address space this region hands out (tests set less;
  // at most MaxBytes(unit)). unit: 8 or 4 bytes. REQUIRES: Init() before any other call.
  RowRegion(Allocator* allocator, size_t chunk_bytes, size_t header_bytes,
            uint64_t max_bytes = kMaxBytes, size_t unit = kUnit);
  ~RowRegion();
  RowRegion(const RowRegion&) = delete;
  RowRegion& operator=(const RowRegion&) = delete;

  // Maps the chunk table: OutOfMemory if the address space cannot be had.
  Status Init();
  // Chunks start at kMinChunkBytes and grow with the region (see above).
  // REQUIRES: before the first Allocate.
  void GrowChunks();

  // A node for a row of `row_bytes`: header_bytes + row_bytes bytes aligned
  // to the unit, never moved or freed before the allocator's memory is.
  // OutOfMemory (the allocator failed) or Full (the address space is
  // exhausted): nothing was handed out.
  Status Allocate(size_t row_bytes, RowRef* ref);

  // Nodes for n rows at once: row_bytes[i] bytes each, refs in refs[i]. The
  // small ones are reserved a chunk's stretch at a time (one CAS for as many
  // nodes as fit). Stops at the first that fails (as Allocate): *allocated
  // says how many got a node.
  Status AllocateMany(const size_t* row_bytes, size_t n, RowRef* refs, size_t* allocated);

  char* At(RowRef ref) const {
    return table_[ref >> shift_] + (size_t{ref & mask_} << unit_shift_);
  }
  char* Row(RowRef ref) const { return At(ref) + header_bytes_; }
  size_t header_bytes() const { return header_bytes_; }

  // More than half of the address space is used: time to switch memtables.
  bool NearlyFull() const;
  // Bytes taken from the allocator so far. From any thread.
  size_t ChunkBytes() const { return chunk_memory_.load(std::memory_order_relaxed); }
  // This region's own memory: the touched part of its chunk table. O(1).
  size_t TableBytes() const;

  // The chunk size for a memtable of write_buffer_size bytes: 1/1024 of it,
  // within [4 KiB, 64 KiB], so the partly filled chunks of a few writer
  // threads are a small part of even a small memtable.
  static size_t ChunkBytesFor(uint64_t write_buffer_size);

 private:
  // Takes a chunk slot with `bytes` of memory; the ref of its start in *ref.
  Status Grab(size_t bytes, uint64_t* ref);
  // The units of the next chunk a thread takes, for an allocation of `need`.
  uint64_t NextChunkUnits(uint64_t need) const;
  // Reserves `units` consecutive units in the calling thread's chunk if they
  // fit, else at the start of a new chunk. REQUIRES: units <= chunk_units_.
  Status Bump(uint64_t units, uint64_t* start);
  uint64_t Units(size_t row_bytes) const {
    const size_t unit = size_t{1} << unit_shift_;
    return std::max<uint64_t>(1, (header_bytes_ + row_bytes + unit - 1) >> unit_shift_);
  }
  // Whether a node of `units` gets an allocation of its own.
  bool Big(uint64_t units) const { return units > chunk_units_ / 4; }

  Allocator* const allocator_;
  const size_t header_bytes_;
  const uint32_t unit_shift_;  // log2(unit)
  const uint32_t shift_;       // log2(chunk_units_)
  const uint64_t chunk_units_;
  const uint64_t mask_;         // chunk_units_ - 1
  uint64_t first_chunk_units_;  // chunk_units_ unless GrowChunks
  const uint64_t max_chunks_;
  char** table_ = nullptr;  // max_chunks_ slots, a fresh anonymous mapping
  ThreadChunks chunks_;
  alignas(concurrency::kCacheLine) std::atomic<uint64_t> next_chunk_{1};  // chunk 0: null
  std::atomic<size_t> chunk_memory_{0};
};

}  // namespace memrep::memory
