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
#include "memrep/run_options.h"
#include "memrep/status.h"

namespace memrep {

struct MEMREP_EXPORT VectorOptions : RunOptions {
  static constexpr const char* kName = "memrep.Vector";

  // Entries the memtable is expected to hold (RocksDB's "vector:<count>"
  // spelling). It sizes the largest chunks entries are appended to, as
  // write_buffer_size does (at kBytesPerReservedEntry bytes an entry);
  // chunks start at 1 KiB and grow with the memtable up to that. 0 (auto):
  // from write_buffer_size.
  uint64_t reserve = 0;
  static constexpr uint64_t kBytesPerReservedEntry = 128;

  // write_buffer_size, seal_threshold, background_cut, max_runs and
  // seek_merges: RunOptions. Inside RocksDB, with no write_buffer_size, chunks
  // are 64 KiB at most. The background strand sorts only while a core is
  // spare: while as many writer threads as cores are writing, it waits
  // (sorting would take a core from a writer), readers sort what they need,
  // and the strand catches up when writers are fewer, pause, or the rep is
  // frozen. background_cut = kMaxThreshold: never while writes go on.

  // Limits on the values above.
  static constexpr uint64_t kMaxReserve = uint64_t{1} << 32;
  // A rep addresses at most 16 GiB of entries (4-byte references to 4-byte
  // units); half of that leaves room for a memtable that overshoots its size.
  static constexpr uint64_t kMaxWriteBufferSize = uint64_t{8} << 30;

  // OK, or InvalidArgument naming the bad field, its value and the allowed range.
  Status Validate() const;

  // The options string that names this rep with these options:
  // "id=memrep.Vector; reserve=auto; write_buffer_size=auto; ...".
  std::string Spec() const;
};

}  // namespace memrep
