// The trie's memory: writers' chunks for nodes, leaves and versions,
// refilled from the blocks the Protocol hands back (trie.h, protocol.h;
// docs/trie.md, Layout and Reclamation). Rows' cells are the row region's
// (AllocateCell).
#include <algorithm>
#include <bit>
#include <cstring>

#include "trie/trie.h"

namespace memrep::trie {

// Everything but a big object comes from one of the calling thread's two
// chunks (memory::ThreadChunks), nodes from one and leaves and versions
// (views) from the other: one shared operation per chunk (the region's
// cursor; none for a chunk from the thread's own spares and free blocks),
// none per allocation.
//
// The reserve: once the region has refused a chunk or a big node (its
// limit, less the reserve, is reached), every writer stops taking leaves and
// versions (views), also from the chunks it holds, or cells (rows,
// AllocateCell), so only the inserts that already hold theirs (one per
// writer thread) go on; their nodes (from_reserve) still come from the
// chunk if it has room, else straight from the region's reserve, up to its
// capacity.
Status Trie::Bump(uint64_t bytes, bool from_reserve, Ref* ref) {
  bytes = RoundUp4(bytes);
  const uint64_t units = bytes / kUnit;
  uint64_t offset = 0;
  if (bytes > chunk_bytes_ / 4) {
    // Big: a stretch of its own, so chunks are never mostly left unused. A
    // node (a K256 with small chunks) past the limit marks the region
    // exhausted, as a refused chunk does, before it takes from the reserve.
    Status s = region_->Bump(bytes, limit_, &offset);
    if (s.IsFull() && from_reserve) {
      exhausted_.store(true, std::memory_order_relaxed);
      s = region_->Bump(bytes, region_->capacity(), &offset);
    }
    if (!s.ok()) return s;
    *ref = static_cast<Ref>(offset / kUnit);
    return Status::OK();
  }
  if (!from_reserve && exhausted_.load(std::memory_order_relaxed)) {
    return Status::Full("the trie's region is full: switch to a new memtable");
  }
  uint64_t start = 0;
  memory::ThreadChunks& chunks = from_reserve ? node_chunks_ : cell_chunks_;
  Status s = chunks.Carve(
      units,
      [&](uint64_t need, uint64_t* chunk, uint64_t* chunk_units) {
        Ref block = 0;
        if (protocol_.TakeChunkBlock(need, &block, chunk_units)) {
          // A retired node's block or a rest of one holds what it held: what
          // a cell does not write must read as zero, as fresh region memory
          // does.
          std::memset(At(block), 0, *chunk_units * kUnit);
          *chunk = block;
          return Status::OK();
        }
        uint64_t at = 0;
        const uint64_t take = NextChunkBytes(need * kUnit);
        Status taken = region_->Bump(take, limit_, &at);
        if (!taken.ok()) {
          if (taken.IsFull()) exhausted_.store(true, std::memory_order_relaxed);
          return taken;
        }
        *chunk = at / kUnit;
        *chunk_units = take / kUnit;
        return Status::OK();
      },
      [&](uint64_t rest, uint64_t rest_units) {
        // The rest of a chunk an allocation did not fit in (nodes are carved
        // from chunks too, so a rest can hold a K256): the thread's next
        // refills take it.
        protocol_.Release(static_cast<Ref>(rest), static_cast<uint32_t>(rest_units));
      },
      &start);
  if (s.IsFull() && from_reserve) {
    s = region_->Bump(bytes, region_->capacity(), &offset);
    start = offset / kUnit;
  }
  if (!s.ok()) return s;
  *ref = static_cast<Ref>(start);
  return Status::OK();
}

// A chunk is 1 KiB while the trie is small, then 1/128 of what it holds, up
// to chunk_bytes_: a memtable of a few rows holds about what a skip list's
// would, whatever its size was expected to be.
uint64_t Trie::NextChunkBytes(uint64_t need) const {
  const uint64_t grown = std::bit_floor(std::max<uint64_t>(BytesUsed() / 128, kMinChunkBytes));
  return RoundUp4(std::clamp(grown, need, chunk_bytes_));
}

// A node comes from the calling thread's free memory when it holds any (a
// replaced node's block, or a rest: Protocol::TakeNodeBlock), else from the
// thread's chunk.
Status Trie::AllocNode(Kind kind, Ref* ref) {
  const int k = static_cast<int>(kind);
  if (protocol_.TakeNodeBlock(kind, ref)) {
    // No reader holds it (Protocol, invariant 4), and it is unreachable:
    // reset it.
    std::memset(At(*ref), 0, kNodeBytes[k]);
    NodeAt(*ref)->kind = kind;
    return Status::OK();
  }
  Status s = Bump(kNodeBytes[k], /*from_reserve=*/true, ref);
  if (s.ok()) NodeAt(*ref)->kind = kind;
  return s;
}

}  // namespace memrep::trie
