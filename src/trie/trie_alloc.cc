// The trie's memory: writers' chunks for nodes, rows, leaves and versions,
// and the retirement and reuse of replaced nodes (trie.h; docs/trie.md,
// Layout and Reclamation).
#include <cstring>
#include <tuple>

#include "trie/trie.h"

namespace memrep::trie {

using concurrency::SharedWrite;

// Everything but a big object comes from one of the calling thread's two
// chunks (memory::ThreadChunks), nodes from one and rows, leaves and
// versions from the other: one shared operation per chunk (the region's
// cursor; none for a chunk from the thread's own spares and free blocks),
// none per allocation.
//
// The reserve: once the region has refused a chunk (its limit, less the
// reserve, is reached), every writer stops taking rows, leaves and versions,
// also from the chunks it holds, so only the inserts whose rows are already
// allocated (one per writer thread) go on; their nodes (from_reserve) still
// come from the chunk if it has room, else straight from the region's
// reserve, up to its capacity.
Status Trie::Bump(uint64_t bytes, bool from_reserve, Ref* ref) {
  bytes = RoundUp4(bytes);
  const uint64_t units = bytes / kUnit;
  uint64_t offset = 0;
  if (bytes > chunk_bytes_ / 4) {
    // Big: a stretch of its own, so chunks are never mostly left unused.
    Status s = region_->Bump(bytes, from_reserve ? region_->capacity() : limit_, &offset);
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
        if (TakeFreeBlock(need, chunk, chunk_units)) return Status::OK();
        uint64_t at = 0;
        Status taken = region_->Bump(chunk_bytes_, limit_, &at);
        if (!taken.ok()) {
          if (taken.IsFull()) exhausted_.store(true, std::memory_order_relaxed);
          return taken;
        }
        *chunk = at / kUnit;
        *chunk_units = chunk_bytes_ / kUnit;
        return Status::OK();
      },
      [&](uint64_t rest, uint64_t rest_units) { KeepLeftover(rest, rest_units); }, &start);
  if (s.IsFull() && from_reserve) {
    s = region_->Bump(bytes, region_->capacity(), &offset);
    start = offset / kUnit;
  }
  if (!s.ok()) return s;
  *ref = static_cast<Ref>(start);
  return Status::OK();
}

// The rest of a chunk that an allocation did not fit in (nodes are carved
// from chunks too, so a rest can be a K256's size): kept as a spare chunk
// for the calling thread's next refills, unless too small for any node.
// Never handed out, so free at once, with no epoch to wait for.
void Trie::KeepLeftover(uint64_t start, uint64_t units) {
  if (units < kNodeBytes[0] / kUnit) return;
  Reclaim& r = reclaim_.Mine();
  concurrency::MutexLock lock(&r.mu);
  r.spare.emplace_back(static_cast<Ref>(start), static_cast<uint32_t>(units));
  // relaxed: a hint (Reclaim); under the lock, so a load and a store.
  r.free_blocks.store(r.free_blocks.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// A chunk of at least `units` from the calling thread's own memory: a spare
// rest of a chunk, else the block of a replaced node (the smallest kind that
// holds them, so that the small blocks nodes outgrew, which new nodes seldom
// need late in a fill, hold rows). None: false. Either is zeroed when taken
// (a spare may be the rest of a replaced node's block): what a cell does not
// write must read as zero, as fresh region memory does.
bool Trie::TakeFreeBlock(uint64_t units, uint64_t* start, uint64_t* chunk_units) {
  Reclaim& r = reclaim_.Mine();
  if (r.free_blocks.load(std::memory_order_relaxed) == 0) return false;
  concurrency::MutexLock lock(&r.mu);
  // The newest few spares: a bounded look, not a search.
  constexpr size_t kSpareLook = 4;
  for (size_t i = r.spare.size(), seen = 0; i > 0 && seen < kSpareLook; --i, ++seen) {
    const auto [at, size] = r.spare[i - 1];
    if (size < units) continue;
    r.spare[i - 1] = r.spare.back();
    r.spare.pop_back();
    r.free_blocks.store(r.free_blocks.load(std::memory_order_relaxed) - 1,
                        std::memory_order_relaxed);
    *start = at;
    *chunk_units = size;
    // A rest of a replaced node's block holds what the node held (AllocNode).
    std::memset(At(at), 0, uint64_t{size} * kUnit);
    return true;
  }
  for (int k = 0; k < kKinds; ++k) {
    if (r.free[k].empty() || kNodeBytes[k] / kUnit < units) continue;
    *start = r.free[k].back();
    r.free[k].pop_back();
    r.free_blocks.store(r.free_blocks.load(std::memory_order_relaxed) - 1,
                        std::memory_order_relaxed);
    *chunk_units = kNodeBytes[k] / kUnit;
    // Unreachable and unread (EpochDomain); what a cell does not write must
    // read as zero, as fresh region memory does.
    std::memset(At(static_cast<Ref>(*start)), 0, kNodeBytes[k]);
    return true;
  }
  return false;
}

// A node comes from the calling thread's own memory when it holds any: a
// replaced node's block of its kind or bigger, else a spare rest of a chunk
// that holds it; what the node leaves of the block becomes a spare (so the
// K16s and K48s that nodes outgrew hold the K2s and K4s that new splits
// need, and rows). Else from the thread's chunk.
Status Trie::AllocNode(Kind kind, Ref* ref) {
  const int k = static_cast<int>(kind);
  const uint32_t need = kNodeBytes[k] / kUnit;
  Reclaim& r = reclaim_.Mine();
  if (r.free_blocks.load(std::memory_order_relaxed) != 0) {
    concurrency::MutexLock lock(&r.mu);
    Ref at = 0;
    uint32_t size = 0;
    for (int j = k; j < kKinds && at == 0; ++j) {
      if (r.free[j].empty()) continue;
      at = r.free[j].back();
      size = kNodeBytes[j] / kUnit;
      r.free[j].pop_back();
    }
    constexpr size_t kSpareLook = 4;
    for (size_t i = r.spare.size(), seen = 0; at == 0 && i > 0 && seen < kSpareLook; --i, ++seen) {
      if (r.spare[i - 1].second < need) continue;
      std::tie(at, size) = r.spare[i - 1];
      r.spare[i - 1] = r.spare.back();
      r.spare.pop_back();
    }
    if (at != 0) {
      int64_t blocks = -1;
      if (size - need >= kNodeBytes[0] / kUnit) {
        r.spare.emplace_back(at + need, size - need);
        ++blocks;
      }
      // relaxed: a hint (Reclaim); under the lock, so a load and a store.
      r.free_blocks.store(
          static_cast<uint32_t>(r.free_blocks.load(std::memory_order_relaxed) + blocks),
          std::memory_order_relaxed);
      *ref = at;
      // No reader holds it (EpochDomain), and it is unreachable: reset it.
      std::memset(At(*ref), 0, kNodeBytes[k]);
      NodeAt(*ref)->kind = kind;
      return Status::OK();
    }
  }
  Status s = Bump(kNodeBytes[k], /*from_reserve=*/true, ref);
  if (s.ok()) NodeAt(*ref)->kind = kind;
  return s;
}

// A node just unlinked (its parent's slot names its copy): counted, then
// kept by the calling thread until no reader can hold it. Its stamp comes
// from an epoch advance after its unlinking and after the count (the
// advance is sequenced after both), as EpochDomain's invariant 2 and the
// iterators' check (Replacements) need; kStampBatch nodes share one advance.
void Trie::Retire(Ref node, Kind kind) {
  MEMREP_COUNT_SHARED_WRITE(SharedWrite::kReplacements);
  // relaxed: see replacements_.
  replacements_.fetch_add(1, std::memory_order_relaxed);
  Reclaim& r = reclaim_.Mine();
  concurrency::MutexLock lock(&r.mu);
  r.pending.push_back(Retired{node, kind, 0});
  if (r.pending.size() >= kStampBatch) StampPending(&r);
}

void Trie::StampPending(Reclaim* r) {
  const uint64_t stamp = epochs_.Advance();
  for (Retired& p : r->pending) {
    p.stamp = stamp;
    r->limbo.push_back(p);
  }
  r->pending.clear();
  if (r->limbo.size() < kLimboCheck) return;
  const uint64_t oldest = epochs_.OldestAnnounced();
  size_t kept = 0;
  uint32_t freed = 0;
  for (const Retired& x : r->limbo) {
    if (x.stamp < oldest) {
      r->free[static_cast<int>(x.kind)].push_back(x.node);
      ++freed;
    } else {
      r->limbo[kept++] = x;
    }
  }
  r->limbo.resize(kept);
  // relaxed: a hint (Reclaim); under the lock, so a load and a store.
  r->free_blocks.store(r->free_blocks.load(std::memory_order_relaxed) + freed,
                       std::memory_order_relaxed);
}

}  // namespace memrep::trie
