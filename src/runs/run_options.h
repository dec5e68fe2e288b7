// What the options structs of reps built on a RunIndex have in common
// (SortedHashOptions, VectorOptions: write_buffer_size, seal_threshold,
// background_cut, max_runs, seek_merges and their limits), read the same way by each.
#pragma once

#include <algorithm>
#include <cstdint>

#include "memrep/rep.h"
#include "runs/run_index.h"

namespace memrep::runs {

// The memtable size a rep is sized for: the option if set, else the
// context's (clamped to the option's range), else the struct's default.
template <typename Options>
uint64_t WriteBufferSizeFor(const Options& options, const RepContext& context) {
  if (options.write_buffer_size != 0) return options.write_buffer_size;
  if (context.write_buffer_size != 0) {
    return std::clamp(context.write_buffer_size, Options::kMinWriteBufferSize,
                      Options::kMaxWriteBufferSize);
  }
  return Options::kDefaultWriteBufferSize;
}

// The memtable size a rep knows it is sized for: the option if set, else the
// context's; 0 if neither says (RocksDB's face: reps then grow their indexes
// from small).
template <typename Options>
uint64_t KnownWriteBufferSize(const Options& options, const RepContext& context) {
  if (options.write_buffer_size != 0) return options.write_buffer_size;
  if (context.write_buffer_size != 0) {
    return std::clamp(context.write_buffer_size, Options::kMinWriteBufferSize,
                      Options::kMaxWriteBufferSize);
  }
  return 0;
}

// The RunIndex options a rep's options ask for; the rep sets the rest.
template <typename Options>
RunIndexOptions RunIndexOptionsOf(const Options& options) {
  RunIndexOptions run_options;
  run_options.seal_threshold = options.seal_threshold;
  run_options.background_cut = options.background_cut;
  run_options.max_runs = options.max_runs;
  run_options.seek_merges = options.seek_merges;
  return run_options;
}

}  // namespace memrep::runs
