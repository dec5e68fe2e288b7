#include "columnar/block_set.h"

#include <algorithm>
#include <new>

namespace memrep::columnar {

BlockSets::BlockSets(const BlockTable& table, const format::KeyOrder& order, uint32_t max_sorted,
                     concurrency::BackgroundPool& pool)
    : table_(table),
      order_(order),
      max_sorted_(std::max<uint32_t>(1, max_sorted)),
      pool_(pool),
      current_(std::make_shared<const Set>()),
      task_(pool, kRecheckPeriod) {}

std::shared_ptr<const BlockSets::Set> BlockSets::Current() const {
  concurrency::MutexLock lock(&mu_);
  return current_;
}

void BlockSets::AddBlock(Block* block) {
  concurrency::MutexLock lock(&mu_);
  auto next = std::make_shared<Set>(*current_);
  next->version = current_->version + 1;
  next->pending.push_back(block);
  current_ = std::move(next);
}

uint64_t BlockSets::Resolved(const Set& set) {
  uint64_t n = 0;
  // acquire: entries counted here are ready for whoever then reads them (invariant 3).
  for (const Block* block : set.pending) n += block->resolved.load(std::memory_order_acquire);
  return n;
}

std::shared_ptr<const SortedBlock> BlockSets::SortBlocks(const std::vector<Block*>& blocks) const {
  std::vector<SortItem> items;
  size_t n = 0;
  for (const Block* block : blocks) n += block->reserved.load(std::memory_order_acquire);
  items.reserve(n);
  for (const Block* block : blocks) {
    const uint32_t reserved = block->reserved.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < reserved; ++i) {
      if (block->ready(i)) {
        items.push_back(SortItem{block->prefix[i], table_.Ref(block->number, i)});
      }
    }
  }
  SortItems(table_, order_, &items);
  return std::make_shared<const SortedBlock>(items);
}

std::shared_ptr<const SortedBlock> BlockSets::Tail(const std::shared_ptr<const Set>& set) {
  // Counted before the blocks are read: a tail built now holds at least
  // these entries, so it serves every reader that counts the same.
  const uint64_t resolved = Resolved(*set);
  {
    concurrency::MutexLock lock(&tail_mu_);
    if (tail_ != nullptr && tail_set_ == set && tail_resolved_ == resolved) return tail_;
  }
  std::shared_ptr<const SortedBlock> tail = SortBlocks(set->pending);
  concurrency::MutexLock lock(&tail_mu_);
  tail_set_ = set;
  tail_resolved_ = resolved;
  tail_ = tail;
  return tail;
}

void BlockSets::Publish(const std::vector<const SortedBlock*>& removed_sorted,
                        const std::vector<Block*>& removed_pending,
                        std::vector<std::shared_ptr<const SortedBlock>> added) {
  concurrency::MutexLock lock(&mu_);
  auto next = std::make_shared<Set>();
  next->version = current_->version + 1;
  for (const auto& sorted : current_->sorted) {
    if (std::find(removed_sorted.begin(), removed_sorted.end(), sorted.get()) ==
        removed_sorted.end()) {
      next->sorted.push_back(sorted);
    }
  }
  for (auto& sorted : added) next->sorted.push_back(std::move(sorted));
  for (Block* block : current_->pending) {
    if (std::find(removed_pending.begin(), removed_pending.end(), block) == removed_pending.end()) {
      next->pending.push_back(block);
    }
  }
  current_ = std::move(next);
}

void BlockSets::Freeze() {
  // release: the task that sees the flag sees every insert before it.
  frozen_.store(true, std::memory_order_release);
  Schedule(false);
}

bool BlockSets::BackgroundWork() {
  const uint64_t start = concurrency::ThreadCpuNanos();
  bool more = true;
  try {
    more = Work();
  } catch (...) {
    // Out of memory: nothing was published half-way (sets are replaced
    // whole); readers sort what is pending, and the task runs again.
  }
  background_nanos_.fetch_add(concurrency::ThreadCpuNanos() - start, std::memory_order_relaxed);
  return more;
}

bool BlockSets::Work() {
  const bool is_frozen = frozen();
  std::shared_ptr<const Set> set = Current();
  // 1. Blocks that will not change: each becomes a sorted block.
  std::vector<Block*> final_blocks;
  bool waiting = false;
  for (Block* block : set->pending) {
    if (is_frozen || block->Final()) {
      final_blocks.push_back(block);
    } else if (block->sealed.load(std::memory_order_acquire)) {
      waiting = true;  // a writer is still filling an entry it reserved
    }
  }
  if (!final_blocks.empty()) {
    std::vector<std::shared_ptr<const SortedBlock>> sorted(final_blocks.size());
    const auto sort_range = [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) sorted[i] = SortBlocks({final_blocks[i]});
    };
    if (final_blocks.size() > 1 && pool_.threads() > 1) {
      if (!pool_.ParallelFor(final_blocks.size(), 1, sort_range, task_.cancel_flag())) return false;
    } else {
      sort_range(0, final_blocks.size());
    }
    if (task_.cancelled()) return false;
    Publish({}, final_blocks, std::move(sorted));
  }
  // 2. Merges: the two smallest sorted blocks, while there are too many. A
  // rep that took no entry since the last task (writes paused or ended) is
  // merged into one block, as a frozen one is: seeks then search one.
  set = Current();
  const uint64_t resolved = Resolved(*set);
  const bool quiet = set->version == last_version_ && resolved == last_resolved_;
  const size_t limit = is_frozen || quiet ? 1 : max_sorted_;
  for (;;) {
    set = Current();
    if (set->sorted.size() <= limit) break;
    std::vector<size_t> order(set->sorted.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::partial_sort(order.begin(), order.begin() + 2, order.end(), [&](size_t a, size_t b) {
      return set->sorted[a]->size() < set->sorted[b]->size();
    });
    const SortedBlock& a = *set->sorted[order[0]];
    const SortedBlock& b = *set->sorted[order[1]];
    std::shared_ptr<const SortedBlock> merged =
        SortedBlock::Merge(table_, order_, a, b, task_.cancel_flag());
    if (merged == nullptr) return false;  // cancelled
    Publish({&a, &b}, {}, {std::move(merged)});
  }
  set = Current();
  last_version_ = set->version;
  last_resolved_ = Resolved(*set);
  // Several sorted blocks while writes go on: look again, to merge them once
  // the writes pause.
  return waiting || (!is_frozen && set->sorted.size() > 1);
}

size_t BlockSets::SortedBytes() const {
  size_t n = 0;
  for (const auto& sorted : Current()->sorted) n += sorted->bytes();
  return n;
}

}  // namespace memrep::columnar
