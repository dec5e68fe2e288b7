// Shared-write counting: the contention audit's instrument. A build
// configured with -DMEMREP_COUNT_SHARED=ON counts, per thread, every store
// and atomic read-modify-write that an insert or a read makes to memory other
// threads also write (cursors, counters, epochs, locks, node slots), so that
// a 2-core machine can show what bounces between 16 cores: the count per
// operation times the cores that write the same line is the traffic.
// memrep_bench prints the counts per operation of each timed phase
// (docs/trie.md, Contention audit).
//
// In every other build MEMREP_COUNT_SHARED_WRITE(...) expands to nothing:
// no code, no data, no branch.
//
// Thread safety (counting build): Count from any thread; Totals from any
// thread, a sum of relaxed loads (exact once the counted threads are done).
// Each thread counts in the block of its ThreadSlot (kBlocks of them, one
// cache line each, so counting adds no shared write of its own while fewer
// than kBlocks threads live); threads whose slots collide modulo kBlocks
// share a block, which stays exact because the increments are atomic.
#pragma once

#include <cstddef>
#include <cstdint>

#ifndef MEMREP_COUNT_SHARED
#define MEMREP_COUNT_SHARED 0
#endif

#if MEMREP_COUNT_SHARED
#include <array>
#include <atomic>

#include "concurrency/thread_slot.h"
#endif

namespace memrep::concurrency {

// What is counted. "Shared" ones are lines every writer writes; "private"
// ones are on the writing thread's own line, shared only when thread slots
// collide (PerThread, invariant 2), listed to show where the writes went.
enum class SharedWrite : uint8_t {
  kRegionCursor,     // shared: VmRegion::Bump's CAS on the region's one cursor (attempts)
  kRegionCommit,     // shared: VmRegion::Commit's CAS on committed_ (explicit commit)
  kChunkRefill,      // per chunk: a thread's chunk replaced (a region Bump or a free block)
  kReplacements,     // shared: the trie's count of replaced nodes (one RMW)
  kEpochAdvance,     // shared: EpochDomain::Advance (seq_cst RMW on the epoch)
  kEpochAnnounce,    // private: a guard's announcement CAS on its slot
  kEpochSlotTaken,   // shared: a guard found its slot taken and tried the next
  kFreeListLock,     // shared: the trie's free_mu_ taken
  kFreeBlocksCount,  // shared: the trie's free_blocks_ RMW
  kNodeLock,         // shared: a node lock taken (CAS) and given back (RMW): 2 writes
  kNodeLockRoot,     // shared: of kNodeLock, on the root (every writer passes it)
  kNodeLockWait,     // shared: a Lock call that found the node locked (once per call)
  kNodeLockSpin,     // of those: the spins (pauses) they waited
  kNodeWrite,        // shared: a store into a published node (slot, count, index, value, lock word)
  kVersionLink,      // shared: a CAS on a version link (same key only)
  kShardCursor,      // private: a thread's chunk cursor CAS (trie cells, RowRegion shards)
  kEntryCount,       // private: a per-thread entry counter
  kRowRegionChunk,   // shared: RowRegion's chunk index CAS and chunk byte count (per chunk)
  // The sorted-run machinery (src/runs/):
  kRunSetMutex,  // shared: RunSetHolder's mutex taken (and, by Current, the set's count)
  kTailMutex,    // shared: RunIndex's tail_mu_ taken (the shared tail's cache)
  kLevelRef,     // shared: a count taken on a shared tail level (a copy of the cached tail)
  kWorkMutex,    // shared: RunIndex's work_mu_ taken or tried (cuts and merges)
  kWorkWait,     // shared: of those, a writer that waited for it (Help past HelpBound)
  kSortMutex,    // shared: RunIndex's sort_mu_ taken (many unsorted rows)
  kIndexFlag,    // shared: an index-wide flag, time or statistic stored (refreshing_,
                 // nudged_version_, last_read_ms_, last_help_ms_, the strand's queue flag)
  kChargedAt,    // shared: ChargedBytes's stores (the charge and the count it was taken at)
  kHeadsRead,    // read, not a write: a load of the write list's 16 shard heads, lines
                 // every writer writes (a miss per head a writer moved since)
  kRowsWalked,   // read, not a write: a row a reader found on the write list (a line its
                 // writer wrote: a miss when that writer's core holds it)
  kOwnLevel,     // private: a reader's own level built (an allocation, no shared line)
  kBlockClass,   // shared: a BlockCache size class's spin lock taken (a block its thread's
                 // cache had no room for, or a take that cache could not serve)
  kCount
};

inline constexpr const char* kSharedWriteNames[] = {
    "region_cursor",  "region_commit",    "chunk_refill",     "replacements",      "epoch_advance",
    "epoch_announce", "epoch_slot_taken", "free_list_lock",   "free_blocks_count", "node_lock",
    "node_lock_root", "node_lock_wait",   "node_lock_spin",   "node_write",        "version_link",
    "shard_cursor",   "entry_count",      "row_region_chunk", "run_set_mutex",     "tail_mutex",
    "level_ref",      "work_mutex",       "work_wait",        "sort_mutex",        "index_flag",
    "charged_at",     "heads_read",       "rows_walked",      "own_level",         "block_class"};
static_assert(sizeof(kSharedWriteNames) / sizeof(kSharedWriteNames[0]) ==
              static_cast<size_t>(SharedWrite::kCount));

inline constexpr bool kCountingSharedWrites = MEMREP_COUNT_SHARED != 0;

struct SharedWriteTotals {
  uint64_t n[static_cast<size_t>(SharedWrite::kCount)] = {};
};

#if MEMREP_COUNT_SHARED

namespace shared_writes_detail {
inline constexpr size_t kBlocks = 256;
struct alignas(kCacheLine) Block {
  std::atomic<uint64_t> n[static_cast<size_t>(SharedWrite::kCount)] = {};
};
inline std::array<Block, kBlocks> blocks;
}  // namespace shared_writes_detail

inline void CountSharedWrite(SharedWrite what, uint64_t times = 1) {
  // relaxed: a count that orders nothing.
  shared_writes_detail::blocks[ThreadSlot() % shared_writes_detail::kBlocks]
      .n[static_cast<size_t>(what)]
      .fetch_add(times, std::memory_order_relaxed);
}

inline SharedWriteTotals SharedWriteTotalsNow() {
  SharedWriteTotals t;
  for (const auto& b : shared_writes_detail::blocks) {
    for (size_t i = 0; i < static_cast<size_t>(SharedWrite::kCount); ++i) {
      t.n[i] += b.n[i].load(std::memory_order_relaxed);
    }
  }
  return t;
}

#define MEMREP_COUNT_SHARED_WRITE(...) ::memrep::concurrency::CountSharedWrite(__VA_ARGS__)

#else

inline SharedWriteTotals SharedWriteTotalsNow() { return {}; }

#define MEMREP_COUNT_SHARED_WRITE(...) ((void)0)

#endif

}  // namespace memrep::concurrency
