// ShimArena: the memtable allocator of memrep_bench, speaking RocksDB's
// Allocator ABI (rocksdb/rocksdb_compat.h), because Debian's headers do not ship
// RocksDB's Arena. Every rep the bench runs, RocksDB's and memrep's, takes its
// entry memory (and, for the skip lists, its nodes) from one of these, as a
// rep inside a RocksDB MemTable takes it from the memtable's arena.
//
// Layout: blocks of block_size() bytes from operator new[] (16-byte aligned),
// carved by a bump cursor. A request larger than a quarter block gets a block
// of its own, so a big allocation never wastes the rest of a current block.
//
//   shard 0 (thread slot % 16):  [block ......cursor|        free       ]
//   shard 1:                     [block ....cursor|          free       ]
//   ...
//
// Thread safety: Allocate and AllocateAligned may be called from many threads
// at once (concurrent inserts). A thread takes from the shard of its
// ThreadSlot(), guarded by a spin flag, so two writer threads only share a
// lock when their slots collide modulo kShards. The byte counts are readable
// from any thread at any time.
//
// Invariants:
//  1. Memory handed out is never moved or freed before the arena is destroyed.
//  2. AllocateAligned returns addresses aligned to kAlignment; Allocate has no
//     alignment guarantee (RocksDB's contract).
//  3. BytesReserved() >= BytesUsed(): used counts the bytes handed out plus
//     the alignment padding before them; reserved counts whole blocks.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "concurrency/per_thread.h"
#include "rocksdb_compat.h"

namespace memrep::bench {

class ShimArena final : public ROCKSDB_NAMESPACE::Allocator {
 public:
  static constexpr size_t kAlignment = alignof(std::max_align_t);
  static constexpr size_t kShards = 16;
  static constexpr size_t kMinBlockSize = 4096;
  static constexpr size_t kDefaultBlockSize = size_t{1} << 20;  // RocksDB's memtable default

  explicit ShimArena(size_t block_size = kDefaultBlockSize);
  ~ShimArena() override;
  ShimArena(const ShimArena&) = delete;
  ShimArena& operator=(const ShimArena&) = delete;

  // REQUIRES: bytes > 0 (0 is served as 1).
  char* Allocate(size_t bytes) override;
  char* AllocateAligned(size_t bytes, size_t huge_page_size = 0,
                        ROCKSDB_NAMESPACE::Logger* logger = nullptr) override;
  size_t BlockSize() const override { return block_size_; }

  // Bytes of every block taken from the system (what a RocksDB memtable
  // charges to its write buffer). O(1).
  size_t BytesReserved() const { return reserved_.load(std::memory_order_relaxed); }
  // Bytes handed out, with the padding that aligned them. O(kShards).
  size_t BytesUsed() const;

 private:
  // PerThread puts each shard on cache lines of its own.
  struct Shard {
    std::atomic<bool> busy{false};
    char* cursor = nullptr;  // GUARDED_BY(busy)
    char* limit = nullptr;   // GUARDED_BY(busy)
    // Written under busy, read by BytesUsed without it: relaxed, a statistic.
    std::atomic<size_t> used{0};
  };

  char* Take(size_t bytes, size_t alignment);
  char* NewBlock(size_t bytes);

  const size_t block_size_;
  concurrency::PerThread<Shard, kShards> shards_;
  std::atomic<size_t> reserved_{0};
  std::atomic<size_t> used_by_big_{0};  // blocks of their own, counted whole
  std::mutex blocks_mu_;
  std::vector<std::unique_ptr<char[]>> blocks_;  // GUARDED_BY(blocks_mu_)
};

}  // namespace memrep::bench
