// RunOptions: the options every rep built on sorted runs shares (the sorted
// hash and vector reps: SortedHashOptions and VectorOptions derive from it),
// with their defaults and limits. Each rep's table lists them under these
// names (docs/sorted_hash.md, docs/vector.md); the columnar rep spells two
// of them its own way (block_size, max_sorted_blocks) and takes its
// defaults from here.
#pragma once

#include <cstdint>

#include "memrep/export.h"

namespace memrep {

struct MEMREP_EXPORT RunOptions {
  // The memtable size the rep is sized for from the start, in bytes. 0
  // (auto): MemTableOptions::write_buffer_size in the standalone face;
  // inside RocksDB, none (RocksDB does not say, on every path it makes a
  // memtable by). Each rep says what it sizes from it and its largest value
  // (kMaxWriteBufferSize).
  uint64_t write_buffer_size = 0;

  // Entries not yet in a sorted run (the tail) are sorted by the readers
  // that need them, incrementally, and shared with later readers. A reader
  // that finds at least this many publishes them as a new run (the
  // background strand normally cuts them first, at background_cut).
  uint32_t seal_threshold = 8192;

  // The background strand is asked to cut the newest entries into a new
  // sorted run each time a writer thread has added this many.
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
  static constexpr uint64_t kDefaultWriteBufferSize = uint64_t{64} << 20;
  static constexpr uint64_t kMinWriteBufferSize = uint64_t{4} << 10;
  static constexpr uint32_t kMaxRuns = 64;
  static constexpr uint32_t kMaxThreshold = uint32_t{1} << 24;
};

}  // namespace memrep
