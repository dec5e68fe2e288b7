// NodeRegion: where a sorted hash rep's nodes live, addressed by 32-bit
// references, so a link costs 4 bytes where a pointer costs 8 (a node's two
// links, a bucket, a run slot).
//
//   chunks:  memory taken from the rep's Allocator (RocksDB's memtable arena,
//            so RocksDB and its WriteBufferManager count it as they count
//            the skip list's nodes), chunk_bytes at a time
//   table:   [ 0 ][ base1 ][ base2 ] ...  chunk index -> chunk memory
//   ref r:   chunk index (high bits) | offset in kUnit units (low bits);
//            node = table[r >> shift] + (r & mask) * kUnit; chunk 0 is never
//            used, so ref 0 means none
//   shard i: cursor -> the next free unit of the chunk its threads fill
//
// Thread safety: Allocate from any thread. Each thread allocates from the
// shard of its ThreadSlot by moving that shard's cursor (a CAS that threads
// only contend on when they share a shard); a shard takes a new chunk (one
// CAS for its index, one allocation) once per chunk, not per node. At from
// any thread, for a ref whose node that thread has seen published.
// Invariants:
//  1. Chunks are chunk_units_ long and start at multiples of it in ref space,
//     so a cursor strictly inside a chunk, or at its end, names the chunk.
//  2. A chunk's table slot is written once, before any ref into it is handed
//     out. Refs reach other threads only inside published nodes (release
//     stores the reader pairs with acquire loads), so a reader that follows a
//     ref also sees the slot. A table slot is never rewritten.
// Limit: 2^32 units (32 GiB) of nodes per rep; past that Allocate throws
// std::bad_alloc, as an allocator out of memory does.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "memrep/rep.h"
#include "util/thread_slot.h"

namespace memrep::sorted_hash {

using NodeRef = uint32_t;  // 0 is null

class NodeRegion {
 public:
  static constexpr size_t kUnit = 8;
  static constexpr uint64_t kMaxBytes = (uint64_t{1} << 32) * kUnit;  // 32 GiB

  // chunk_bytes: what a shard takes at a time, a power of two of at least
  // 4 KiB. max_bytes: the most this region hands out (tests set less).
  NodeRegion(Allocator* allocator, size_t chunk_bytes, uint64_t max_bytes = kMaxBytes);
  ~NodeRegion();
  NodeRegion(const NodeRegion&) = delete;
  NodeRegion& operator=(const NodeRegion&) = delete;

  // `bytes` bytes aligned to kUnit, never moved or freed before the
  // allocator's memory is.
  NodeRef Allocate(size_t bytes);

  char* At(NodeRef ref) const { return table_[ref >> shift_] + size_t{ref & mask_} * kUnit; }

  // Chunks taken from the allocator so far, in bytes. From any thread.
  size_t ChunkBytes() const;
  // This region's own memory: the touched part of its chunk table. O(1).
  size_t TableBytes() const;

  // The chunk size for a memtable of write_buffer_size bytes: 1/1024 of it,
  // within [4 KiB, 64 KiB], so the partly filled chunks of a few writer
  // threads are a small part of even a small memtable.
  static size_t ChunkBytesFor(uint64_t write_buffer_size);

 private:
  static constexpr size_t kShards = 16;
  struct alignas(util::kCacheLine) Shard {
    // The ref of the shard's next free unit; 0 before its first chunk.
    std::atomic<uint64_t> cursor{0};
  };

  // Takes `chunks` consecutive chunks; returns the ref of the first's start.
  uint64_t Grab(uint64_t chunks);
  uint64_t ChunkEnd(uint64_t cursor) const {
    return cursor == 0 ? 0 : ((cursor - 1) / chunk_units_ + 1) * chunk_units_;
  }

  Allocator* const allocator_;
  const uint32_t shift_;       // log2(chunk_units_)
  const uint64_t chunk_units_;
  const uint64_t mask_;        // chunk_units_ - 1
  const uint64_t max_chunks_;
  char** table_;               // max_chunks_ slots, a fresh anonymous mapping
  std::array<Shard, kShards> shards_;
  alignas(util::kCacheLine) std::atomic<uint64_t> next_chunk_{1};  // chunk 0: null
};

}  // namespace memrep::sorted_hash
