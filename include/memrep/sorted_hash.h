// The sorted hash rep: a lock-free hash index on the full user key for O(1)
// inserts and point reads, and sorted runs cut from a write list in the
// background for ordered reads. Design and costs: docs/sorted_hash.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memrep/rep.h"
#include "memrep/status.h"

namespace memrep {

struct SortedHashOptions {
  // Hash buckets, 4 bytes each, rounded up to a power of two. 0 derives the
  // count from write_buffer_size: one bucket per kWriteBufferBytesPerBucket
  // bytes of memtable, so a full memtable of ~150-byte entries has chains of
  // about two, and the index costs 1/64 of the write buffer.
  uint64_t bucket_count = 0;
  static constexpr uint64_t kWriteBufferBytesPerBucket = 256;

  // The memtable size this rep is sized for, in bytes. 0 (auto): the RocksDB
  // plugin uses the column family's write_buffer_size; otherwise 64 MiB.
  uint64_t write_buffer_size = 0;

  // Entries not yet in a sorted run (the tail) are sorted by the iterators
  // that need them, incrementally, and shared with later iterators. An
  // iterator that finds at least this many publishes them as a new run (the
  // background worker normally cuts them first, at background_cut).
  uint32_t seal_threshold = 8192;

  // The background worker is asked to cut the write list into a new sorted
  // run each time a writer thread has added this many entries.
  uint32_t background_cut = 4096;

  // Sorted runs kept at most while writes continue; more are merged.
  uint32_t max_runs = 8;

  // Limits on the values above, checked by Validate().
  static constexpr uint64_t kMaxBucketCount = uint64_t{1} << 30;  // 4 GiB of buckets
  static constexpr uint64_t kDefaultWriteBufferSize = uint64_t{64} << 20;
  static constexpr uint64_t kMinWriteBufferSize = uint64_t{4} << 10;
  // A rep addresses at most 32 GiB of entries (4-byte references to 8-byte
  // units); half of that leaves room for a memtable that overshoots its size.
  static constexpr uint64_t kMaxWriteBufferSize = uint64_t{16} << 30;
  static constexpr uint32_t kMaxRuns = 64;
  static constexpr uint32_t kMaxThreshold = uint32_t{1} << 24;

  // OK, or InvalidArgument naming the bad field, its value and the allowed range.
  Status Validate() const;

  // write_buffer_size, or kDefaultWriteBufferSize for 0.
  uint64_t EffectiveWriteBufferSize() const {
    return write_buffer_size != 0 ? write_buffer_size : kDefaultWriteBufferSize;
  }

  // The bucket count the rep will use: a power of two.
  uint64_t EffectiveBucketCount() const;

  // The option names, as Set and Get take them.
  static const std::vector<std::string>& Names();

  // "bucket_count=auto;write_buffer_size=67108864;..." (every field).
  std::string ToString() const;

  // Sets the field called `name` from `value`, a decimal number ("auto" for
  // bucket_count means 0, sized from write_buffer_size). An unknown name, a
  // non-number, zero buckets or a value out of range gives InvalidArgument
  // and changes nothing.
  Status Set(const std::string& name, const std::string& value);
  // The field's value as Set takes it.
  Status Get(const std::string& name, std::string* value) const;
};

// REQUIRES: options.Validate().ok(), context.allocator != nullptr.
std::unique_ptr<Rep> NewSortedHashRep(const SortedHashOptions& options, const RepContext& context);

}  // namespace memrep
