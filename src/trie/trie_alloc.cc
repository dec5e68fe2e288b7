// The trie's memory: writers' chunks for rows, leaves and versions, nodes,
// and the retirement and reuse of replaced nodes (trie.h; docs/trie.md,
// Layout and Reclamation).
#include <cstring>

#include "trie/trie.h"

namespace memrep::trie {

using concurrency::SharedWrite;

Status Trie::Bump(uint64_t bytes, bool from_reserve, Ref* ref) {
  bytes = RoundUp4(bytes);
  if (from_reserve || bytes > chunk_bytes_ / 4) {
    uint64_t offset = 0;
    Status s = region_->Bump(bytes, from_reserve ? region_->capacity() : limit_, &offset);
    if (!s.ok()) return s;
    *ref = static_cast<Ref>(offset / kUnit);
    return Status::OK();
  }
  // Rows, leaves and versions: from the chunk of the writer's shard, so
  // writers share no cache line, and chunks may be blocks of replaced nodes.
  //   span = end << 32 | cursor, in units; cursor <= end.
  // A CAS moves the cursor; a refill (under the shard's lock, so one thread
  // refills and the others see its chunk) installs a new span.
  // Once the region has refused a chunk, every writer stops taking rows,
  // also from the chunks it holds: only the inserts whose rows are already
  // allocated (one per writer thread) draw on the reserve for their nodes.
  if (exhausted_.load(std::memory_order_relaxed)) {
    return Status::Full("the trie's region is full: switch to a new memtable");
  }
  const uint64_t units = bytes / kUnit;
  CellShard& shard = shards_.Mine();
  uint64_t span = shard.span.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t cursor = span & 0xffffffffu, end = span >> 32;
    if (cursor + units <= end) {
      MEMREP_COUNT_SHARED_WRITE(SharedWrite::kShardCursor);
      if (shard.span.compare_exchange_weak(span, span + units, std::memory_order_relaxed)) {
        *ref = static_cast<Ref>(cursor);
        return Status::OK();
      }
      continue;
    }
    concurrency::MutexLock lock(&shard.refill);
    if (shard.span.load(std::memory_order_relaxed) != span) {
      span = shard.span.load(std::memory_order_relaxed);
      continue;
    }
    MEMREP_COUNT_SHARED_WRITE(SharedWrite::kChunkRefill);
    uint64_t start = 0, chunk_units = 0;
    if (!TakeFreeBlock(units, &start, &chunk_units)) {
      uint64_t offset = 0;
      Status s = region_->Bump(chunk_bytes_, limit_, &offset);
      if (!s.ok()) {
        if (s.IsFull()) exhausted_.store(true, std::memory_order_relaxed);
        return s;
      }
      start = offset / kUnit;
      chunk_units = chunk_bytes_ / kUnit;
    }
    *ref = static_cast<Ref>(start);
    shard.span.store((start + chunk_units) << 32 | (start + units), std::memory_order_relaxed);
    return Status::OK();
  }
}

// A block of a replaced K48 or K256 that holds `units`, as a chunk for rows
// and leaves (nodes take the smaller kinds; see AllocNode).
bool Trie::TakeFreeBlock(uint64_t units, uint64_t* start, uint64_t* chunk_units) {
  if (free_blocks_.load(std::memory_order_relaxed) == 0) return false;
  MEMREP_COUNT_SHARED_WRITE(SharedWrite::kFreeListLock);
  concurrency::MutexLock lock(&free_mu_);
  for (int k = static_cast<int>(Kind::kK48); k < kKinds; ++k) {
    if (free_[k].empty() || kNodeBytes[k] / kUnit < units) continue;
    *start = free_[k].back();
    free_[k].pop_back();
    MEMREP_COUNT_SHARED_WRITE(SharedWrite::kFreeBlocksCount);
    free_blocks_.fetch_sub(1, std::memory_order_relaxed);
    *chunk_units = kNodeBytes[k] / kUnit;
    // Unreachable and unread (EpochDomain); what a cell does not write must
    // read as zero, as fresh region memory does.
    std::memset(At(static_cast<Ref>(*start)), 0, kNodeBytes[k]);
    return true;
  }
  return false;
}

// A node comes from the free lists when they hold anything: one of its own
// kind, else the front of a bigger block, whose rest is cut into blocks of
// the biggest kinds that fit (so the K16s and K48s that nodes outgrew become
// the K2s and K4s that new splits need). Else from the region.
Status Trie::AllocNode(Kind kind, Ref* ref) {
  const int k = static_cast<int>(kind);
  if (free_blocks_.load(std::memory_order_relaxed) != 0) {
    MEMREP_COUNT_SHARED_WRITE(SharedWrite::kFreeListLock);
    concurrency::MutexLock lock(&free_mu_);
    for (int j = k; j < kKinds; ++j) {
      if (free_[j].empty()) continue;
      *ref = free_[j].back();
      free_[j].pop_back();
      uint32_t rest = kNodeBytes[j] - kNodeBytes[k];
      Ref at = *ref + kNodeBytes[k] / kUnit;
      for (int c = j - 1; c >= 0 && rest >= kNodeBytes[0]; --c) {
        while (rest >= kNodeBytes[c]) {
          free_[c].push_back(at);
          at += kNodeBytes[c] / kUnit;
          rest -= kNodeBytes[c];
          MEMREP_COUNT_SHARED_WRITE(SharedWrite::kFreeBlocksCount);
          free_blocks_.fetch_add(1, std::memory_order_relaxed);
        }
      }
      MEMREP_COUNT_SHARED_WRITE(SharedWrite::kFreeBlocksCount);
      free_blocks_.fetch_sub(1, std::memory_order_relaxed);
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

void Trie::Retire(Ref node, Kind kind) {
  MEMREP_COUNT_SHARED_WRITE(SharedWrite::kReplacements);
  replacements_.fetch_add(1, std::memory_order_seq_cst);
  const uint64_t stamp = epochs_.Advance();
  MEMREP_COUNT_SHARED_WRITE(SharedWrite::kFreeListLock);
  concurrency::MutexLock lock(&free_mu_);
  limbo_.push_back(Retired{node, kind, stamp});
  if (limbo_.size() < 32) return;
  const uint64_t oldest = epochs_.OldestAnnounced();
  size_t kept = 0;
  for (const Retired& r : limbo_) {
    if (r.stamp < oldest) {
      free_[static_cast<int>(r.kind)].push_back(r.node);
      MEMREP_COUNT_SHARED_WRITE(SharedWrite::kFreeBlocksCount);
      free_blocks_.fetch_add(1, std::memory_order_relaxed);
    } else {
      limbo_[kept++] = r;
    }
  }
  limbo_.resize(kept);
}

}  // namespace memrep::trie
