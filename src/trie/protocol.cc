// The trie's concurrency protocol: node locks, retirement and reuse
// (protocol.h gives the invariants).
#include "trie/protocol.h"

#include <thread>

#include "concurrency/shared_writes.h"

namespace memrep::trie {

using concurrency::SharedWrite;

// A holder keeps a node for a few dozen instructions, so a waiter spins; but
// a holder the scheduler has preempted (more runnable threads than cores)
// keeps it for a time slice, so after kSpins pauses the waiter yields its
// core instead of spinning that slice away (the contention audit's counts:
// docs/results/2026-11-26-trie-per-thread-chunks.md).
bool Protocol::Lock(NodeHeader* n) const {
  constexpr uint32_t kSpins = 64;
  [[maybe_unused]] bool waited = false;
  for (uint32_t spins = 0;; ++spins) {
    uint32_t v = n->lock.load(std::memory_order_relaxed);
    if (v & kObsolete) return false;
    if ((v & kLocked) == 0 &&
        n->lock.compare_exchange_weak(v, v | kLocked, std::memory_order_acquire,
                                      std::memory_order_relaxed)) {
      MEMREP_COUNT_SHARED_WRITE(SharedWrite::kNodeLock);
      if (n == root_) MEMREP_COUNT_SHARED_WRITE(SharedWrite::kNodeLockRoot);
      return true;
    }
    if (concurrency::kCountingSharedWrites && !waited) {
      MEMREP_COUNT_SHARED_WRITE(SharedWrite::kNodeLockWait);
      waited = true;
    }
    MEMREP_COUNT_SHARED_WRITE(SharedWrite::kNodeLockSpin);
    if (spins < kSpins) {
      __builtin_ia32_pause();
    } else {
      std::this_thread::yield();
    }
  }
}

// A plain store, not an RMW: while a node is locked only its holder writes
// the word (Lock's CAS needs it unlocked, and Replace ends the lock), so the
// holder knows what it holds, and a release store hands it on as a
// fetch_and would, without the locked instruction.
void Protocol::Unlock(NodeHeader* n) {
  MEMREP_COUNT_SHARED_WRITE(SharedWrite::kNodeLock);
  n->lock.store(n->lock.load(std::memory_order_relaxed) & ~kLocked, std::memory_order_release);
}

void Protocol::Replace(NodeHeader* n) {
  MEMREP_COUNT_SHARED_WRITE(SharedWrite::kNodeLock);
  // release: the holder's changes before it (none, for a replaced node) and
  // the link of its copy are visible to whoever reads the obsolete bit.
  n->lock.store(kObsolete, std::memory_order_release);
}

// Its stamp comes from an epoch advance after its unlinking and after the
// count (the advance is sequenced after both), as EpochDomain's invariant 2
// and PathStamp need; kStampBatch nodes share one advance.
void Protocol::Retire(Ref node, Kind kind) {
  MEMREP_COUNT_SHARED_WRITE(SharedWrite::kReplacements);
  // relaxed: invariant 3.
  replacements_.fetch_add(1, std::memory_order_relaxed);
  Reclaim& r = reclaim_.Mine();
  concurrency::MutexLock lock(&r.mu);
  r.pending.push_back(Retired{node, kind, 0});
  if (r.pending.size() >= kStampBatch) StampPending(&r);
}

void Protocol::StampPending(Reclaim* r) {
  const uint64_t stamp = epochs_.Advance();
  for (Retired& p : r->pending) {
    p.stamp = stamp;
    r->limbo.push_back(p);
  }
  r->pending.clear();
  if (r->limbo.size() < kLimboCheck) return;
  const uint64_t oldest = epochs_.OldestAnnounced();
  size_t kept = 0;
  int64_t freed = 0;
  for (const Retired& x : r->limbo) {
    if (x.stamp < oldest) {
      r->free[static_cast<int>(x.kind)].push_back(x.node);
      ++freed;
    } else {
      r->limbo[kept++] = x;
    }
  }
  r->limbo.resize(kept);
  r->AddFree(freed);
}

void Protocol::Release(Ref start, uint32_t units) {
  if (units < kNodeBytes[0] / kUnit) return;
  Reclaim& r = reclaim_.Mine();
  concurrency::MutexLock lock(&r.mu);
  r.spare.emplace_back(start, units);
  r.AddFree(1);
}

bool Protocol::TakeNodeBlock(Kind kind, Ref* start) {
  const int k = static_cast<int>(kind);
  const uint32_t need = kNodeBytes[k] / kUnit;
  Reclaim& r = reclaim_.Mine();
  if (r.free_blocks.load(std::memory_order_relaxed) == 0) return false;
  concurrency::MutexLock lock(&r.mu);
  Ref at = 0;
  uint32_t size = 0;
  for (int j = k; j < kKinds && at == 0; ++j) {
    if (r.free[j].empty()) continue;
    at = r.free[j].back();
    size = kNodeBytes[j] / kUnit;
    r.free[j].pop_back();
  }
  for (size_t i = r.spare.size(), seen = 0; at == 0 && i > 0 && seen < kSpareLook; --i, ++seen) {
    if (r.spare[i - 1].second < need) continue;
    at = r.spare[i - 1].first;
    size = r.spare[i - 1].second;
    r.spare[i - 1] = r.spare.back();
    r.spare.pop_back();
  }
  if (at == 0) return false;
  int64_t blocks = -1;
  if (size - need >= kNodeBytes[0] / kUnit) {
    r.spare.emplace_back(at + need, size - need);
    ++blocks;
  }
  r.AddFree(blocks);
  *start = at;
  return true;
}

bool Protocol::TakeChunkBlock(uint64_t units, Ref* start, uint64_t* got) {
  Reclaim& r = reclaim_.Mine();
  if (r.free_blocks.load(std::memory_order_relaxed) == 0) return false;
  concurrency::MutexLock lock(&r.mu);
  for (size_t i = r.spare.size(), seen = 0; i > 0 && seen < kSpareLook; --i, ++seen) {
    const auto [at, size] = r.spare[i - 1];
    if (size < units) continue;
    r.spare[i - 1] = r.spare.back();
    r.spare.pop_back();
    r.AddFree(-1);
    *start = at;
    *got = size;
    return true;
  }
  for (int k = 0; k < kKinds; ++k) {
    if (r.free[k].empty() || kNodeBytes[k] / kUnit < units) continue;
    *start = r.free[k].back();
    r.free[k].pop_back();
    r.AddFree(-1);
    *got = kNodeBytes[k] / kUnit;
    return true;
  }
  return false;
}

}  // namespace memrep::trie
