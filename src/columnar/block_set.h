// BlockSets: which of the columnar rep's entries are sorted, and the
// background work that sorts them.
//
//   writers ──► pending blocks (active, or sealed and waiting)
//                   │ strand: radix-sort each final block (in parallel over
//                   ▼         the pool when several wait)
//               sorted blocks ──► merged, two smallest at a time, while there
//                                 are more than max_sorted_blocks; into one
//                                 after Freeze, or once no entry arrived for
//                                 a recheck period
//
// A Set is immutable and versioned: readers take the current one (a mutex
// held for a pointer copy) and see every entry exactly once, in its sorted
// blocks or in its pending blocks (whose ready entries they sort into a tail,
// cached and shared by readers of the same Set until entries arrive).
//
// Thread safety: AddBlock from writers (rarely: once a block), Current and
// Tail from readers, the rest from the background task (a SerialTask: runs
// never overlap); Close (the rep's destructor) makes queued runs return at
// once, stops a running merge within SortedBlock::kCancelCheck entries, and
// waits for the running one.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include "columnar/columns.h"
#include "columnar/sorted_block.h"
#include "concurrency/background_pool.h"
#include "concurrency/mutex.h"
#include "concurrency/serial_task.h"
#include "format/key_order.h"

namespace memrep::columnar {

class BlockSets : public std::enable_shared_from_this<BlockSets> {
 public:
  struct Set {
    uint64_t version = 0;
    std::vector<std::shared_ptr<const SortedBlock>> sorted;
    std::vector<Block*> pending;  // in creation order
  };

  // REQUIRES: table, order and pool outlive every task (Close waits for them).
  BlockSets(const BlockTable& table, const format::KeyOrder& order, uint32_t max_sorted,
            concurrency::BackgroundPool& pool);

  std::shared_ptr<const Set> Current() const EXCLUDES(mu_);
  // Adds a new, empty block to the pending ones. May throw std::bad_alloc.
  void AddBlock(Block* block) EXCLUDES(mu_);
  // A block was sealed: queue background work.
  void Sealed() { Schedule(false); }

  // The ready entries of `set`'s pending blocks, sorted: built once per set
  // and count of resolved entries, and shared. May throw std::bad_alloc.
  std::shared_ptr<const SortedBlock> Tail(const std::shared_ptr<const Set>& set) EXCLUDES(tail_mu_);
  // Resolved entries of a set's pending blocks (a tail is current while this is unchanged).
  static uint64_t Resolved(const Set& set);

  void Freeze();
  bool frozen() const { return frozen_.load(std::memory_order_acquire); }
  void Close() { task_.Close(); }

  // For tests and benchmarks: the bytes of the sorted blocks now.
  size_t SortedBytes() const;
  // CPU time the background tasks took, in nanoseconds.
  uint64_t BackgroundNanos() const { return background_nanos_.load(std::memory_order_relaxed); }

 private:
  friend class concurrency::SerialTask;
  void Schedule(bool delayed) { task_.Schedule(shared_from_this(), delayed); }
  // One run of the background task: Work, its CPU time counted.
  bool BackgroundWork();
  // One step: sorts final blocks, merges; returns whether work is left for later.
  bool Work();
  // Replaces `removed_sorted` and `removed_pending` by `added` in the current set.
  void Publish(const std::vector<const SortedBlock*>& removed_sorted,
               const std::vector<Block*>& removed_pending,
               std::vector<std::shared_ptr<const SortedBlock>> added) EXCLUDES(mu_);
  // The ready entries of `blocks` as one sorted block.
  std::shared_ptr<const SortedBlock> SortBlocks(const std::vector<Block*>& blocks) const;

  const BlockTable& table_;
  const format::KeyOrder& order_;
  const uint32_t max_sorted_;
  concurrency::BackgroundPool& pool_;

  mutable concurrency::Mutex mu_;
  std::shared_ptr<const Set> current_ GUARDED_BY(mu_);

  concurrency::Mutex tail_mu_;
  std::shared_ptr<const Set> tail_set_ GUARDED_BY(tail_mu_);
  uint64_t tail_resolved_ GUARDED_BY(tail_mu_) = 0;
  std::shared_ptr<const SortedBlock> tail_ GUARDED_BY(tail_mu_);

  std::atomic<bool> frozen_{false};
  std::atomic<uint64_t> background_nanos_{0};
  // The set version and resolved count the last task left (strand only):
  // unchanged at the next task means no entry arrived meanwhile.
  uint64_t last_version_ = ~uint64_t{0};
  uint64_t last_resolved_ = ~uint64_t{0};
  // While blocks are sealed but not every entry is resolved (a RocksDB
  // writer between Allocate and Insert), the strand looks again this often.
  static constexpr std::chrono::milliseconds kRecheckPeriod{5};
  concurrency::SerialTask task_;
};

}  // namespace memrep::columnar
