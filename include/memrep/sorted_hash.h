// The sorted hash rep (memrep.SortedHash): a lock-free hash index on the full
// user key for O(1) inserts and point reads, and sorted runs cut from a write
// list in the background for ordered reads. Design and costs:
// docs/sorted_hash.md; every option is listed there, from the option table.
//
// Open it by name ("memrep.SortedHash", "sorted_hash") or with options
// ("id=memrep.SortedHash; bucket_count=1048576; max_runs=4"); from C++,
// fill this struct and pass Spec() wherever a rep is named.
#pragma once

#include <cstdint>
#include <string>

#include "memrep/export.h"
#include "memrep/status.h"

namespace memrep {

struct MEMREP_EXPORT SortedHashOptions {
  static constexpr const char* kName = "memrep.SortedHash";

  // Hash buckets, 8 bytes each (a chain's head and a filter of its keys),
  // taken from the memtable's arena. The index grows by adding tables as
  // the memtable fills (64 buckets first, then 8 times more each time the
  // rows pass kWriteBufferBytesPerBucket a bucket of the newest table), so
  // a memtable of unknown size holds about one bucket per
  // kWriteBufferBytesPerBucket bytes of rows: chains of about 3.4 with
  // ~150-byte entries, an index of 1/64 to 1/8 of the rows. A known size
  // (write_buffer_size below) starts with the table for it. bucket_count
  // caps the tables (0, auto: up to kMaxBucketCount).
  uint64_t bucket_count = 0;
  static constexpr uint64_t kWriteBufferBytesPerBucket = 512;
  static constexpr uint64_t kMinAutoBuckets = 16;

  // The memtable size this rep is sized for from the start, in bytes. 0
  // (auto): MemTableOptions::write_buffer_size in the standalone face;
  // inside RocksDB, none (RocksDB does not say, on every path it makes a
  // memtable by), and the index grows.
  uint64_t write_buffer_size = 0;

  // Entries not yet in a sorted run (the tail) are sorted by the iterators
  // that need them, incrementally, and shared with later iterators. An
  // iterator that finds at least this many publishes them as a new run (the
  // background strand normally cuts them first, at background_cut).
  uint32_t seal_threshold = 8192;

  // The background strand is asked to cut the write list into a new sorted
  // run each time a writer thread has added this many entries.
  uint32_t background_cut = 4096;

  // Sorted runs kept at most while writes continue; more are merged.
  uint32_t max_runs = 8;

  // While iterators seek beside writers, merge the runs below the biggest into
  // one as far as the seeks pay for the rows copied (a seek then searches two
  // runs instead of up to max_runs). false: only max_runs bounds the runs; the
  // writers that help sort copy fewer rows, and each seek searches more of
  // them.
  bool seek_merges = true;

  // Limits on the values above.
  static constexpr uint64_t kMaxBucketCount = uint64_t{1} << 30;  // 8 GiB of buckets
  static constexpr uint64_t kDefaultWriteBufferSize = uint64_t{64} << 20;
  static constexpr uint64_t kMinWriteBufferSize = uint64_t{4} << 10;
  // A rep addresses at most 32 GiB of entries (4-byte references to 8-byte
  // units); half of that leaves room for a memtable that overshoots its size.
  static constexpr uint64_t kMaxWriteBufferSize = uint64_t{16} << 30;
  static constexpr uint32_t kMaxRuns = 64;
  static constexpr uint32_t kMaxThreshold = uint32_t{1} << 24;

  // OK, or InvalidArgument naming the bad field, its value and the allowed range.
  Status Validate() const;

  // The options string that names this rep with these options:
  // "id=memrep.SortedHash; bucket_count=auto; write_buffer_size=auto; ...".
  std::string Spec() const;
};

}  // namespace memrep
