// NodeRegion: the memory of a sorted hash rep's nodes, one contiguous
// reservation addressed by 32-bit references, so a link costs 4 bytes where a
// pointer costs 8 (a node's two links, a bucket).
//
//   reservation: [ chunk 0 (unused: ref 0 is null) | chunk 1 | chunk 2 | ... ]
//                  ref r = byte offset / kUnit; a node starts on a unit
//   committed:   the prefix made readable and writable so far; pages are
//                still only backed by memory when first touched
//   shard i:     cursor -> inside the chunk its threads are filling
//
// Thread safety: Allocate from any thread. Each thread allocates from the
// shard of its ThreadSlot by moving that shard's cursor (a CAS that threads
// only contend on when they share a shard); a shard takes a new chunk from the
// region's top (one fetch_add, and under a mutex an mprotect when the top
// passes the committed prefix) once per chunk, not per node. Ref conversions
// from any thread.
// Invariants:
//  1. Chunks are kChunkUnits long and start at multiples of it, so a cursor
//     strictly inside a chunk, or at its end, names the chunk it fills.
//  2. Memory below top_ is committed before any ref into it is handed out.
// Limit: kMaxBytes of nodes per rep (the reservation); past that Allocate
// throws std::bad_alloc, as an allocator out of memory does.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "util/thread_slot.h"

namespace memrep::sorted_hash {

using NodeRef = uint32_t;  // 0 is null

class NodeRegion {
 public:
  static constexpr size_t kUnit = 8;
  static constexpr uint64_t kMaxBytes = (uint64_t{1} << 32) * kUnit;  // 32 GiB

  // chunk_bytes: what a shard takes at a time, a power of two of at least 4 KiB.
  // reserve_bytes: the address space reserved, at most kMaxBytes (less only in tests).
  explicit NodeRegion(size_t chunk_bytes, uint64_t reserve_bytes = kMaxBytes);
  ~NodeRegion();
  NodeRegion(const NodeRegion&) = delete;
  NodeRegion& operator=(const NodeRegion&) = delete;

  // `bytes` bytes aligned to kUnit, never moved or freed before the region.
  NodeRef Allocate(size_t bytes);

  char* At(NodeRef ref) const { return base_ + size_t{ref} * kUnit; }
  const char* base() const { return base_; }
  NodeRef RefOf(const void* p) const {
    return static_cast<NodeRef>((static_cast<const char*>(p) - base_) / kUnit);
  }

  // Bytes handed to shards or large allocations so far. O(1), from any thread.
  size_t AllocatedBytes() const;

  // The chunk size for a memtable of write_buffer_size bytes: 1/1024 of it,
  // within [4 KiB, 64 KiB], so the partly filled chunks of a few writer
  // threads are a small part of even a small memtable.
  static size_t ChunkBytesFor(uint64_t write_buffer_size);

 private:
  static constexpr size_t kShards = 16;
  struct alignas(util::kCacheLine) Shard {
    // The next free unit of the shard's chunk; 0 before its first chunk.
    std::atomic<uint64_t> cursor{0};
  };

  // Takes `units` (a multiple of kChunkUnits) from the top; returns the first.
  uint64_t Grab(uint64_t units);
  uint64_t ChunkEnd(uint64_t cursor) const {
    return cursor == 0 ? 0 : ((cursor - 1) / chunk_units_ + 1) * chunk_units_;
  }

  const uint64_t chunk_units_;
  const uint64_t reserve_bytes_;
  char* base_;
  std::array<Shard, kShards> shards_;
  alignas(util::kCacheLine) std::atomic<uint64_t> top_;  // in units
  std::mutex commit_mu_;
  uint64_t committed_ = 0;  // bytes; GUARDED_BY(commit_mu_)
};

}  // namespace memrep::sorted_hash
