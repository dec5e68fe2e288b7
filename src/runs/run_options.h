// How reps built on a RunIndex read their options: the memtable size they
// are sized for (SortedHashOptions, VectorOptions and ColumnarOptions: a
// write_buffer_size and its limits), and the RunIndex options a RunOptions
// (memrep/run_options.h) asks for.
#pragma once

#include <algorithm>
#include <cstdint>

#include "memrep/rep.h"
#include "memrep/run_options.h"
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

// The RunIndex options `options` asks for; the rep sets the rest.
inline RunIndexOptions RunIndexOptionsOf(const RunOptions& options) {
  RunIndexOptions run_options;
  run_options.seal_threshold = options.seal_threshold;
  run_options.background_cut = options.background_cut;
  run_options.max_runs = options.max_runs;
  run_options.seek_merges = options.seek_merges;
  return run_options;
}

}  // namespace memrep::runs
