// The option-table rows of the options every rep built on a RunIndex has
// (memrep/run_options.h), so that they parse, print and read the same in
// each rep's table and docs page.
#pragma once

#include <string_view>
#include <type_traits>

#include "memrep/run_options.h"
#include "registry/option_table.h"

namespace memrep::registry {

// Adds write_buffer_size to `builder` (every rep on runs has it, under this name).
template <typename Options>
OptionTable::Builder<Options>&& WithWriteBufferSize(OptionTable::Builder<Options>&& builder) {
  using O = Options;
  return std::move(builder).Bytes(
      "write_buffer_size", &O::write_buffer_size, O::kMinWriteBufferSize, O::kMaxWriteBufferSize,
      "the memtable size the rep is sized for from the start; auto: "
      "MemTableOptions::write_buffer_size standalone; inside RocksDB, none (the rep "
      "grows its index as it fills)",
      /*allows_auto=*/true);
}

// Adds RunOptions' rows (memrep/run_options.h) to `builder`: write_buffer_size,
// seal_threshold, background_cut, max_runs and seek_merges, in that order;
// `background_cut_doc` ends background_cut's line.
template <typename Options>
OptionTable::Builder<Options>&& WithRunIndexOptions(OptionTable::Builder<Options>&& builder,
                                                    std::string_view background_cut_doc) {
  using O = Options;
  static_assert(std::is_base_of_v<RunOptions, O>, "the options of a rep on runs");
  return WithWriteBufferSize(std::move(builder))
      .Count("seal_threshold", &O::seal_threshold, 1, O::kMaxThreshold,
             "unsorted entries a reader publishes as a new sorted run")
      .Count("background_cut", &O::background_cut, 1, O::kMaxThreshold, background_cut_doc)
      .Count("max_runs", &O::max_runs, 2, O::kMaxRuns,
             "sorted runs kept at most while writes continue; more are merged")
      .Bool("seek_merges", &O::seek_merges,
            "merge the runs below the biggest while iterators seek beside writers, as far as "
            "the seeks pay for the copy; false: only max_runs bounds them");
}

}  // namespace memrep::registry
