#include "sorted_hash/node_region.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <new>

namespace memrep::sorted_hash {

NodeRegion::NodeRegion(Allocator* allocator, size_t chunk_bytes, uint64_t max_bytes)
    : allocator_(allocator),
      shift_(static_cast<uint32_t>(std::countr_zero(chunk_bytes / kUnit))),
      chunk_units_(chunk_bytes / kUnit),
      mask_(chunk_units_ - 1),
      max_chunks_(std::min(max_bytes, kMaxBytes) / chunk_bytes) {
  // A fresh anonymous mapping: its zero pages take memory only as chunks
  // are added (8 bytes per chunk), so creating a region touches none.
  void* p = ::mmap(nullptr, max_chunks_ * sizeof(char*), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  table_ = static_cast<char**>(p);
}

NodeRegion::~NodeRegion() { ::munmap(table_, max_chunks_ * sizeof(char*)); }

size_t NodeRegion::ChunkBytesFor(uint64_t write_buffer_size) {
  const uint64_t wanted = std::clamp<uint64_t>(write_buffer_size / 1024, 4096, 65536);
  return std::bit_floor(wanted);
}

size_t NodeRegion::ChunkBytes() const {
  // relaxed: a statistic.
  return (next_chunk_.load(std::memory_order_relaxed) - 1) * chunk_units_ * kUnit;
}

size_t NodeRegion::TableBytes() const {
  // relaxed: a statistic. Slot 0 stays unused.
  return (next_chunk_.load(std::memory_order_relaxed) - 1) * sizeof(char*);
}

uint64_t NodeRegion::Grab(uint64_t chunks) {
  // relaxed: only hands out indexes; the slots are written below, before any
  // ref into them leaves this thread (invariant 2).
  uint64_t first = next_chunk_.load(std::memory_order_relaxed);
  do {
    // Full: fail this request only; smaller ones may still fit.
    if (chunks > max_chunks_ - first) throw std::bad_alloc();
  } while (!next_chunk_.compare_exchange_weak(first, first + chunks, std::memory_order_relaxed));
  char* memory = allocator_->AllocateAligned(chunks * chunk_units_ * kUnit);
  for (uint64_t i = 0; i < chunks; ++i) table_[first + i] = memory + i * chunk_units_ * kUnit;
  return first << shift_;
}

NodeRef NodeRegion::Allocate(size_t bytes) {
  const uint64_t units = std::max<uint64_t>(1, (bytes + kUnit - 1) / kUnit);
  // A big node takes chunks of its own, rather than most of a shard's chunk:
  // consecutive indexes over one allocation, so the node is contiguous.
  if (units > chunk_units_ / 4) {
    return static_cast<NodeRef>(Grab((units + chunk_units_ - 1) / chunk_units_));
  }
  Shard& shard = shards_[util::ThreadSlot() % kShards];
  // acquire, pairing with the release that installs a chunk: a thread that
  // allocates in a chunk another thread took sees its table slot. A node's
  // contents are published by the rep's own release operations.
  uint64_t cursor = shard.cursor.load(std::memory_order_acquire);
  for (;;) {
    if (cursor != 0 && cursor + units <= ChunkEnd(cursor)) {
      if (shard.cursor.compare_exchange_weak(cursor, cursor + units, std::memory_order_acquire)) {
        return static_cast<NodeRef>(cursor);
      }
      continue;
    }
    const uint64_t chunk = Grab(1);
    if (shard.cursor.compare_exchange_strong(cursor, chunk + units, std::memory_order_acq_rel,
                                             std::memory_order_acquire)) {
      return static_cast<NodeRef>(chunk);
    }
    // Another thread of this shard moved the cursor first: its chunk is used
    // and this one is left unused (taken from the allocator, never touched).
  }
}

}  // namespace memrep::sorted_hash
