// GrowingTables: Generations (concurrency/generations.h) with the growth
// policy both point indexes follow, the sorted hash rep's HashIndex and the
// columnar rep's ColumnIndex:
//
//   T0: first_buckets ──► T1: T0 x growth ──► ... up to max_buckets,
//                                              and at most kMaxTables tables
//   a table is outgrown once the rows pass its buckets x bytes_per_bucket
//   AND the entries its buckets x entries_per_bucket (a few big values grow
//   no index); big rows but few entries: look again at rows x 5/4.
//
// Table must have Table(uint64_t buckets, Region* region, bool with_older)
// (with_older: whether it keeps a summary of older tables' keys; the first
// table has none), Status Init(Allocator*), uint64_t bucket_count() const
// and void Cover(const Table& older) (Generations, "Covering").
//
// Thread safety: MaybeGrow from any thread (Generations::Grow lets one grow
// at a time; the others go on). grow_at_ is a hint read relaxed: a writer
// that reads a stale one calls Grow, which checks again under the grower's
// flag, where only the grower reads or changes grow_at_ and the newest
// table's shape.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <string>

#include "concurrency/generations.h"
#include "memrep/status.h"

namespace memrep {
class Allocator;  // memrep/rep.h: the tables take their buckets from it
}  // namespace memrep

namespace memrep::concurrency {

struct TableGrowth {
  uint64_t first_buckets;  // REQUIRES: 0 < first_buckets <= max_buckets
  uint64_t max_buckets;
  uint64_t bytes_per_bucket;    // rows a bucket is for
  uint64_t entries_per_bucket;  // entries a bucket is for
  uint64_t growth;              // each table's buckets: the newest's times this
};

template <typename Table, int kMaxTables, typename Region>
class GrowingTables : public Generations<Table, kMaxTables> {
 public:
  // what: the table's name in an OutOfMemory message.
  GrowingTables(Region* region, const TableGrowth& growth, const char* what)
      : region_(region), growth_(growth), what_(what) {}

  // The first table, from `allocator`, which later tables come from too.
  // OutOfMemory if it cannot be had.
  Status Init(Allocator* allocator) {
    allocator_ = allocator;
    std::unique_ptr<Table> first;
    Status s = NewTable(growth_.first_buckets, /*with_older=*/false, &first);
    if (!s.ok()) return s;
    this->InitFirst(std::move(first));
    if (growth_.first_buckets < growth_.max_buckets) {
      grow_at_.store(growth_.first_buckets * growth_.bytes_per_bucket, std::memory_order_relaxed);
    }
    return Status::OK();
  }

  // Adds a table if the rows (`row_bytes`, and entries(), how many) have
  // outgrown the newest. Cheap when the bytes have not: one relaxed load;
  // entries() is called only then.
  template <typename Entries>
  void MaybeGrow(size_t row_bytes, Entries&& entries) {
    // relaxed: a hint; Grow checks again.
    if (row_bytes > grow_at_.load(std::memory_order_relaxed)) Grow(row_bytes, entries());
  }

  // The sum over the tables of (table.*figure)().
  template <typename Figure>
  uint64_t Sum(Figure figure) const {
    uint64_t total = 0;
    for (int i = 0, n = this->count(); i < n; ++i) total += (this->table(i).*figure)();
    return total;
  }

 private:
  Status NewTable(uint64_t buckets, bool with_older, std::unique_ptr<Table>* out) {
    out->reset(new (std::nothrow) Table(buckets, region_, with_older));
    if (*out == nullptr) return Status::OutOfMemory(std::string("could not allocate a ") + what_);
    return (*out)->Init(allocator_);
  }

  void Grow(size_t row_bytes, uint64_t entries) {
    Generations<Table, kMaxTables>::Grow(
        [&](std::unique_ptr<Table>* out) {
          // Under the grower's flag: the check holds (see the header).
          const Table& newest = this->newest();
          if (row_bytes <= newest.bucket_count() * growth_.bytes_per_bucket) return Status::OK();
          if (entries <= newest.bucket_count() * growth_.entries_per_bucket) {
            // Big rows, few of them: look again once the rows grew by a quarter.
            grow_at_.store(row_bytes + row_bytes / 4, std::memory_order_relaxed);
            return Status::OK();
          }
          const uint64_t buckets =
              std::min(newest.bucket_count() * growth_.growth, growth_.max_buckets);
          // Out of memory: the tables there are take the keys; a later
          // insert tries again.
          Status s = NewTable(buckets, /*with_older=*/true, out);
          if (!s.ok()) return s;
          grow_at_.store(buckets < growth_.max_buckets && this->count() + 1 < kMaxTables
                             ? buckets * growth_.bytes_per_bucket
                             : ~uint64_t{0},
                         std::memory_order_relaxed);
          return Status::OK();
        },
        [&](Table& table, int older) {
          for (int i = 0; i < older; ++i) table.Cover(this->table(i));
        });
  }

  Region* const region_;
  const TableGrowth growth_;
  const char* const what_;
  Allocator* allocator_ = nullptr;
  // The rows above which the newest table is outgrown (~0: never).
  std::atomic<uint64_t> grow_at_{~uint64_t{0}};
};

// The table sizes a rep's options ask of its growing index (the sorted hash
// rep's HashIndex, the columnar rep's ColumnIndex). Options has bucket_count
// (0: auto) and kWriteBufferBytesPerBucket, kMinAutoBuckets and
// kMaxBucketCount.

// The largest table: bucket_count if given.
template <typename Options>
uint64_t MaxBuckets(const Options& options) {
  return options.bucket_count != 0 ? options.bucket_count : Options::kMaxBucketCount;
}

// The table for a memtable known to hold write_buffer_size bytes. A count
// given is honoured as it is; an automatic one is at least kMinAutoBuckets,
// so that a tiny write buffer still spreads its keys.
template <typename Options>
uint64_t EffectiveBucketCount(const Options& options, uint64_t write_buffer_size) {
  const uint64_t wanted = options.bucket_count != 0
                              ? options.bucket_count
                              : std::max(write_buffer_size / Options::kWriteBufferBytesPerBucket,
                                         Options::kMinAutoBuckets);
  return std::min(wanted, Options::kMaxBucketCount);
}

// The first table: sized for the memtable where its size is known (the
// standalone face, or a write_buffer_size option), else as small as the
// smallest memtable needs, `smallest` (RocksDB's face: RocksDB does not say).
template <typename Options>
uint64_t FirstBuckets(const Options& options, uint64_t known_write_buffer_size, uint64_t smallest) {
  if (known_write_buffer_size != 0) return EffectiveBucketCount(options, known_write_buffer_size);
  return std::min(smallest, MaxBuckets(options));
}

}  // namespace memrep::concurrency
