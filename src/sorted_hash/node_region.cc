#include "sorted_hash/node_region.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace memrep::sorted_hash {
namespace {

// The reservation grows its readable, writable prefix this much at a time.
constexpr uint64_t kCommitStep = uint64_t{4} << 20;

}  // namespace

NodeRegion::NodeRegion(size_t chunk_bytes, uint64_t reserve_bytes)
    : chunk_units_(chunk_bytes / kUnit), reserve_bytes_(std::min(reserve_bytes, kMaxBytes)) {
  // PROT_NONE and MAP_NORESERVE: address space only, no memory and no commit
  // charge until Grab opens a prefix of it.
  void* p = ::mmap(nullptr, reserve_bytes_, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  base_ = static_cast<char*>(p);
  // Chunk 0 is never handed out, so that ref 0 can mean null.
  top_.store(chunk_units_, std::memory_order_relaxed);
}

NodeRegion::~NodeRegion() { ::munmap(base_, reserve_bytes_); }

size_t NodeRegion::ChunkBytesFor(uint64_t write_buffer_size) {
  const uint64_t wanted = std::clamp<uint64_t>(write_buffer_size / 1024, 4096, 65536);
  uint64_t bytes = 4096;
  while (bytes * 2 <= wanted) bytes *= 2;
  return bytes;
}

size_t NodeRegion::AllocatedBytes() const {
  // relaxed: a statistic.
  return (top_.load(std::memory_order_relaxed) - chunk_units_) * kUnit;
}

uint64_t NodeRegion::Grab(uint64_t units) {
  // relaxed: the chunk's memory is made usable below, by this thread, before
  // any ref into it leaves; nothing else is published through top_.
  uint64_t first = top_.load(std::memory_order_relaxed);
  do {
    // Full: fail this request only; smaller ones may still fit.
    if (units > reserve_bytes_ / kUnit - first) throw std::bad_alloc();
  } while (!top_.compare_exchange_weak(first, first + units, std::memory_order_relaxed));
  const uint64_t end = first + units;
  std::lock_guard<std::mutex> lock(commit_mu_);
  if (committed_ < end * kUnit) {
    const uint64_t rounded = (end * kUnit + kCommitStep - 1) / kCommitStep * kCommitStep;
    const uint64_t target = std::min(reserve_bytes_, rounded);
    if (::mprotect(base_ + committed_, target - committed_, PROT_READ | PROT_WRITE) != 0) {
      throw std::bad_alloc();
    }
    committed_ = target;
  }
  return first;
}

NodeRef NodeRegion::Allocate(size_t bytes) {
  const uint64_t units = std::max<uint64_t>(1, (bytes + kUnit - 1) / kUnit);
  // A big node takes chunks of its own, rather than most of a shard's chunk.
  if (units > chunk_units_ / 4) {
    return static_cast<NodeRef>(Grab((units + chunk_units_ - 1) / chunk_units_ * chunk_units_));
  }
  Shard& shard = shards_[util::ThreadSlot() % kShards];
  // acquire, pairing with the release that installs a chunk: a thread that
  // allocates in a chunk another thread took runs after that thread made it
  // usable (invariant 2). A node's contents are published by the rep's own
  // release operations, not through the cursor.
  uint64_t cursor = shard.cursor.load(std::memory_order_acquire);
  for (;;) {
    if (cursor != 0 && cursor + units <= ChunkEnd(cursor)) {
      if (shard.cursor.compare_exchange_weak(cursor, cursor + units, std::memory_order_acquire)) {
        return static_cast<NodeRef>(cursor);
      }
      continue;
    }
    const uint64_t chunk = Grab(chunk_units_);
    if (shard.cursor.compare_exchange_strong(cursor, chunk + units, std::memory_order_acq_rel,
                                             std::memory_order_acquire)) {
      return static_cast<NodeRef>(chunk);
    }
    // Another thread of this shard moved the cursor first: its chunk is used
    // and this one is left unused (counted, never touched, so never resident).
  }
}

}  // namespace memrep::sorted_hash
