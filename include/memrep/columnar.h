// The columnar rep (memrep.Columnar): a write-optimised memtable. Each writer
// thread appends to its own block of fixed-width columns (key pointer,
// lengths, sequence and type, key prefix, version link) with the key and
// value bytes in its own byte chunks, so writers share no cache line; a
// concurrent open-addressing index with fingerprints maps every user key to
// its newest version (a writer links its entries into it a few inserts late,
// and reads also look at those few); full blocks are sealed in O(1) and
// radix-sorted into sorted blocks in the background, which are merged to a
// bounded count.
// Design and costs: docs/columnar.md; every option is listed there, from the
// option table.
//
// Open it by name ("memrep.Columnar", "columnar") or with options
// ("id=memrep.Columnar; shards=8; block_size=4096"); from C++, fill this
// struct and pass Spec() wherever a rep is named.
#pragma once

#include <cstdint>
#include <string>

#include "memrep/export.h"
#include "memrep/status.h"

namespace memrep {

struct MEMREP_EXPORT ColumnarOptions {
  static constexpr const char* kName = "memrep.Columnar";

  // Writer regions: each holds one active block and one byte chunk, and a
  // writer thread appends to the region of its thread slot (the next free one
  // if another thread is in it). Unused regions cost 192 bytes.
  uint32_t shards = 16;

  // Entries per block, rounded down to a power of two. 0 (auto): from
  // write_buffer_size, the fewest entries whose columns are more than a
  // quarter of the arena block RocksDB would use (min(1 MiB,
  // write_buffer_size / 8)), so that the arena gives each block of columns
  // an allocation of its own instead of carving it (256..8192 entries).
  uint32_t block_size = 0;

  // Index buckets (64 bytes: seven slots and an overflow link), rounded up to
  // a power of two. 0 (auto): one per kWriteBufferBytesPerBucket bytes of
  // memtable, at least kMinAutoBuckets.
  uint64_t bucket_count = 0;
  static constexpr uint64_t kWriteBufferBytesPerBucket = 1024;
  static constexpr uint64_t kMinAutoBuckets = 64;

  // The memtable size this rep is sized for, in bytes. 0 (auto): the size
  // the memtable is expected to reach (RocksDB's write_buffer_size, or
  // MemTableOptions::write_buffer_size), else 64 MiB.
  uint64_t write_buffer_size = 0;

  // Sorted blocks kept at most while writes continue; more are merged, so a
  // seek searches at most this many plus the entries not yet sorted.
  uint32_t max_sorted_blocks = 8;

  // Limits on the values above.
  static constexpr uint32_t kMaxShards = 256;
  static constexpr uint32_t kMinBlockSize = 16;
  static constexpr uint32_t kMaxBlockSize = uint32_t{1} << 16;
  static constexpr uint64_t kMaxBucketCount = uint64_t{1} << 28;
  static constexpr uint64_t kDefaultWriteBufferSize = uint64_t{64} << 20;
  static constexpr uint64_t kMinWriteBufferSize = uint64_t{4} << 10;
  // Entries are named by 32-bit references; this leaves room for entries of
  // 4 bytes and a memtable that overshoots its size.
  static constexpr uint64_t kMaxWriteBufferSize = uint64_t{8} << 30;
  static constexpr uint32_t kMaxSortedBlocks = 64;

  // OK, or InvalidArgument naming the bad field, its value and the allowed range.
  Status Validate() const;

  // The options string that names this rep with these options:
  // "id=memrep.Columnar; shards=16; block_size=auto; ...".
  std::string Spec() const;
};

}  // namespace memrep
