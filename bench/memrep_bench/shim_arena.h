// ShimArena: the memtable allocator of memrep_bench, speaking RocksDB's
// Allocator ABI (rocksdb/rocksdb_compat.h), because Debian's headers do not ship
// RocksDB's Arena. Every rep the bench runs, RocksDB's and memrep's, takes its
// entry memory (and, for the skip lists, its nodes) from one of these, as a
// rep inside a RocksDB MemTable takes it from the memtable's arena.
//
// An adapter over memrep's own memory::Arena (src/memory/arena.h), which
// holds the layout, the thread safety and the invariants; this class adds
// RocksDB's names and its rule that an allocation never returns nullptr
// (std::bad_alloc instead, as RocksDB's own arena throws). Allocate has no
// alignment guarantee (RocksDB's contract); AllocateAligned aligns to
// kAlignment.
#pragma once

#include <cstddef>

#include "memory/arena.h"
#include "rocksdb_compat.h"

namespace memrep::bench {

class ShimArena final : public ROCKSDB_NAMESPACE::Allocator {
 public:
  static constexpr size_t kAlignment = memory::Arena::kAlignment;
  static constexpr size_t kMinBlockSize = memory::Arena::kMinBlockSize;
  static constexpr size_t kDefaultBlockSize = size_t{1} << 20;  // RocksDB's memtable default

  explicit ShimArena(size_t block_size = kDefaultBlockSize) : arena_(block_size) {}
  ShimArena(const ShimArena&) = delete;
  ShimArena& operator=(const ShimArena&) = delete;

  // REQUIRES: bytes > 0 (0 is served as 1).
  char* Allocate(size_t bytes) override { return Checked(arena_.Allocate(bytes, 1)); }
  char* AllocateAligned(size_t bytes, size_t /*huge_page_size*/ = 0,
                        ROCKSDB_NAMESPACE::Logger* /*logger*/ = nullptr) override {
    return Checked(arena_.Allocate(bytes, kAlignment));
  }
  size_t BlockSize() const override { return arena_.block_size(); }

  // Bytes of every block taken from the system (what a RocksDB memtable
  // charges to its write buffer). O(1).
  size_t BytesReserved() const { return arena_.MemoryUsage(); }
  // Bytes handed out, with the padding that aligned them. O(shards).
  size_t BytesUsed() const { return arena_.BytesUsed(); }

 private:
  static char* Checked(char* p);

  memory::Arena arena_;
};

}  // namespace memrep::bench
