// The columnar rep (memrep.Columnar): a write-optimised memtable. Each writer
// thread appends its entries as rows to its own chunk, so writers share no
// cache line; a concurrent open-addressing index with fingerprints maps
// every user key to its newest version (a writer links its entries into it a
// few inserts late, and reads also look at those few); ordered reads come
// from the sorted runs the sorted hash and vector reps use, sorted and merged
// in the background.
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
#include "memrep/run_options.h"
#include "memrep/status.h"

namespace memrep {

struct MEMREP_EXPORT ColumnarOptions {
  static constexpr const char* kName = "memrep.Columnar";

  // Writer regions: each holds the queue of entries a writer links into the
  // index a few inserts late; a writer thread uses the region of its thread
  // slot (the next free one if another thread is in it). A region costs 192
  // bytes, made the first time a writer uses it.
  uint32_t shards = 16;

  // Entries a writer thread adds between requests to sort them in the
  // background (the sorted runs' background cut; once, the entries of a
  // block of columns). 0 (auto): RunOptions' background_cut, 4096.
  uint32_t block_size = 0;

  // Index buckets (64 bytes: twelve slots and an overflow link), taken from
  // the memtable's arena. The index grows by adding tables as the memtable
  // fills (8 buckets first, then 4 times more each time the rows pass
  // kWriteBufferBytesPerBucket a bucket of the newest table: about nine
  // keys a bucket at 140 bytes an entry). A known size (write_buffer_size)
  // starts with the table for it, at least kMinAutoBuckets. bucket_count
  // caps the tables (0, auto: up to kMaxBucketCount).
  uint64_t bucket_count = 0;
  static constexpr uint64_t kWriteBufferBytesPerBucket = 1280;
  static constexpr uint64_t kMinAutoBuckets = 64;

  // The memtable size this rep is sized for from the start, in bytes. 0
  // (auto): MemTableOptions::write_buffer_size in the standalone face;
  // inside RocksDB, none, and the index grows.
  uint64_t write_buffer_size = 0;

  // Sorted runs kept at most while writes continue; more are merged, so a
  // seek searches at most this many plus the entries not yet sorted.
  uint32_t max_sorted_blocks = 8;

  // While iterators seek beside writers, merge the runs below the biggest into
  // one as far as the seeks pay for the rows copied (a seek then searches two
  // runs instead of up to max_sorted_blocks). false: only max_sorted_blocks
  // bounds the runs; the writers that help sort copy fewer rows, and each seek
  // searches more of them.
  bool seek_merges = true;

  // Limits on the values above.
  static constexpr uint32_t kMaxShards = 256;
  static constexpr uint32_t kMinBlockSize = 16;
  static constexpr uint32_t kMaxBlockSize = uint32_t{1} << 16;
  static constexpr uint64_t kMaxBucketCount = uint64_t{1} << 28;
  static constexpr uint64_t kDefaultWriteBufferSize = RunOptions::kDefaultWriteBufferSize;
  static constexpr uint64_t kMinWriteBufferSize = RunOptions::kMinWriteBufferSize;
  // Entries are named by 32-bit references; this leaves room for entries of
  // 4 bytes and a memtable that overshoots its size.
  static constexpr uint64_t kMaxWriteBufferSize = uint64_t{8} << 30;
  static constexpr uint32_t kMaxSortedBlocks = RunOptions::kMaxRuns;

  // OK, or InvalidArgument naming the bad field, its value and the allowed range.
  Status Validate() const;

  // The options string that names this rep with these options:
  // "id=memrep.Columnar; shards=16; block_size=auto; ...".
  std::string Spec() const;
};

}  // namespace memrep
