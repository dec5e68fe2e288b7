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
#include "memrep/run_options.h"
#include "memrep/status.h"

namespace memrep {

struct MEMREP_EXPORT SortedHashOptions : RunOptions {
  static constexpr const char* kName = "memrep.SortedHash";

  // Hash buckets, 8 bytes each (a chain's head and a filter of its keys),
  // taken from the memtable's arena. The index grows by adding tables as
  // the memtable fills (64 buckets first, then 8 times more each time the
  // rows pass kWriteBufferBytesPerBucket a bucket of the newest table), so
  // a memtable of unknown size holds about one bucket per
  // kWriteBufferBytesPerBucket bytes of rows: chains of about 3.4 with
  // ~150-byte entries, an index of 1/64 to 1/8 of the rows. A known size
  // (write_buffer_size, RunOptions) starts with the table for it. bucket_count
  // caps the tables (0, auto: up to kMaxBucketCount).
  uint64_t bucket_count = 0;
  static constexpr uint64_t kWriteBufferBytesPerBucket = 512;
  static constexpr uint64_t kMinAutoBuckets = 16;

  // write_buffer_size, seal_threshold, background_cut, max_runs and
  // seek_merges: RunOptions. A known write_buffer_size starts the index with
  // the table for it; inside RocksDB the index grows from 64 buckets.

  // Limits on the values above.
  static constexpr uint64_t kMaxBucketCount = uint64_t{1} << 30;  // 8 GiB of buckets
  // A rep addresses at most 32 GiB of entries (4-byte references to 8-byte
  // units); half of that leaves room for a memtable that overshoots its size.
  static constexpr uint64_t kMaxWriteBufferSize = uint64_t{16} << 30;

  // OK, or InvalidArgument naming the bad field, its value and the allowed range.
  Status Validate() const;

  // The options string that names this rep with these options:
  // "id=memrep.SortedHash; bucket_count=auto; write_buffer_size=auto; ...".
  std::string Spec() const;
};

}  // namespace memrep
