// RunIndexOptions: what a rep asks of its RunIndex (runs/run_index.h). The
// rules these tune: docs/runs.md.
#pragma once

#include <cstdint>

#include "memrep/run_options.h"
#include "runs/sorted_run.h"

namespace memrep::runs {

struct RunIndexOptions {
  // seal_threshold, background_cut, max_runs and seek_merges default as
  // memrep::RunOptions says (include/memrep/run_options.h).
  //
  // An iterator that finds at least this many unsorted rows publishes them
  // as a new run (the background strand normally cuts them first).
  uint32_t seal_threshold = RunOptions{}.seal_threshold;
  // A cut is requested each time a writer thread has pushed this many rows.
  uint32_t background_cut = RunOptions{}.background_cut;
  // Sorted runs kept at most while writes continue; more are merged.
  uint32_t max_runs = RunOptions{}.max_runs;
  // How published runs are laid out: kAuto keeps every prefix of runs up to
  // SortedRun::kPrefixedRunMax entries (faster searches while writes
  // continue, charged in MemoryUsage); kFenced keeps fences only (fewer
  // bytes per entry).
  SortedRun::Layout run_layout = SortedRun::Layout::kAuto;
  // Background cuts wait while at least as many writer threads as the
  // machine has cores pushed since the last task: sorting would then take a
  // core from a writer. Readers sort what they need meanwhile, and the strand
  // catches up once writers are fewer, pause or Freeze. Merges still keep
  // the runs that readers seal within max_runs, so reads stay bounded.
  bool yield_to_writers = false;
  // Published runs keep a point filter (SortedRun::Filter::kPoint, about one
  // byte per entry) for reps whose point reads search the runs (Get and
  // MultiGet: a run that cannot hold the key is skipped). Ignored under a
  // custom comparator, whose equal keys need not be equal bytes.
  bool point_filters = false;
  // While iterators seek beside writers, merge the runs below the biggest
  // as far as the seeks pay for it (docs/runs.md, "Seeks pay for fewer
  // runs"). false: max_runs alone bounds the runs.
  bool seek_merges = RunOptions{}.seek_merges;
};

}  // namespace memrep::runs
