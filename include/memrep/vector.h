// The vector rep (memrep.Vector): an append-only memtable. A write copies the
// entry to the end of its writer's chunk and links it on its writer's list:
// no comparison, no hash. Readers get sorted runs cut from those lists in the
// background, and sort only what arrived since the last reader; a frozen
// vector is sorted into one array in the background. Design and costs:
// docs/vector.md; every option is listed there, from the option table.
//
// Open it by name ("memrep.Vector", "vector_rep", "vector_rep:1000000") or
// with options ("id=memrep.Vector; max_runs=4"); from C++, fill this struct
// and pass Spec() wherever a rep is named. RocksDB's own "vector" stays
// RocksDB's.
#pragma once

#include <cstdint>
#include <string>

#include "memrep/export.h"
#include "memrep/status.h"

namespace memrep {

struct MEMREP_EXPORT VectorOptions {
  static constexpr const char* kName = "memrep.Vector";

  // Entries the memtable is expected to hold (RocksDB's "vector:<count>"
  // spelling). It sizes the largest chunks entries are appended to, as
  // write_buffer_size does (at kBytesPerReservedEntry bytes an entry);
  // chunks start at 1 KiB and grow with the memtable up to that. 0 (auto):
  // from write_buffer_size.
  uint64_t reserve = 0;
  static constexpr uint64_t kBytesPerReservedEntry = 128;

  // The memtable size this rep is sized for, in bytes. 0 (auto):
  // MemTableOptions::write_buffer_size in the standalone face; inside
  // RocksDB, none (64 KiB chunks at most).
  uint64_t write_buffer_size = 0;

  // Entries not yet in a sorted run are sorted by the readers that need
  // them, incrementally, and shared with later readers; a reader that finds
  // at least this many publishes them as a new run.
  uint32_t seal_threshold = 8192;

  // The background strand is asked to cut the newest entries into a sorted
  // run each time a writer thread has added this many. It sorts only while
  // a core is spare: while as many writer threads as cores are writing, it
  // waits (sorting would take a core from a writer), readers sort what they
  // need, and the strand catches up when writers are fewer, pause, or the
  // rep is frozen. kMaxThreshold: never while writes go on.
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
  static constexpr uint64_t kMaxReserve = uint64_t{1} << 32;
  static constexpr uint64_t kDefaultWriteBufferSize = uint64_t{64} << 20;
  static constexpr uint64_t kMinWriteBufferSize = uint64_t{4} << 10;
  // A rep addresses at most 16 GiB of entries (4-byte references to 4-byte
  // units); half of that leaves room for a memtable that overshoots its size.
  static constexpr uint64_t kMaxWriteBufferSize = uint64_t{8} << 30;
  static constexpr uint32_t kMaxRuns = 64;
  static constexpr uint32_t kMaxThreshold = uint32_t{1} << 24;

  // OK, or InvalidArgument naming the bad field, its value and the allowed range.
  Status Validate() const;

  // The options string that names this rep with these options:
  // "id=memrep.Vector; reserve=auto; write_buffer_size=auto; ...".
  std::string Spec() const;
};

}  // namespace memrep
