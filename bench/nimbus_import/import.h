// One run of memrep_nimbus_import: one rep's import into a fresh database,
// with its read phases, timed and checked, and the figures it yields.
#pragma once

#include <rocksdb/memtablerep.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "flags.h"

namespace memrep::nimbus_import {

namespace rdb = ROCKSDB_NAMESPACE;

// One run of one rep. Times in seconds unless named otherwise.
struct Figures {
  // The writer's loop: building the batches and every persist, without the
  // read phases (which are timed on their own).
  double import_s = 0;
  // import_s plus the final db->Flush(wait=true) that empties the memtables.
  double import_flush_s = 0;
  // One persist (db->Write of one batch): the time the writer is blocked,
  // memtable switches and write stalls included. Nearest-rank percentiles.
  double persist_p50_ms = 0;
  double persist_p99_ms = 0;
  double persist_max_ms = 0;
  // Flushes completed (each one is a memtable switched and written out, the
  // final flush included) and the sum of their durations, from OnFlushBegin
  // to OnFlushCompleted, on RocksDB's flush thread.
  double flushes = 0;
  double flush_s = 0;
  // Time RocksDB held writes back (its STALL_MICROS ticker: too many
  // immutable memtables waiting for their flush, or L0 files): the part of
  // the persists' time that a faster flush, not a faster memtable, removes.
  double stall_s = 0;
  // Gets of recent keys per second of the read phases' Gets; NaN without reads.
  double recent_reads_per_s = NAN;
  // The mean time of the first Get of a read phase: it pays for sorting what
  // the memtable had not sorted yet (a skip list sorts on insert instead).
  double first_read_ms = NAN;
};

// A rep to run: its factory string and the factory made from it.
struct Rep {
  std::string spec;  // the factory string, as given
  std::shared_ptr<rdb::MemTableRepFactory> factory;
};

// Creates every rep's factory. On failure, returns false with `error` set.
bool CreateReps(const Flags& flags, std::vector<Rep>* reps, std::string* error);

// Imports --records records of `rep` into a fresh directory under --db,
// removed (DestroyDB, then the directory) when the run is over. Returns false
// with `error` set on a RocksDB error or a failed read check.
bool RunInFreshDir(const Flags& flags, const Rep& rep, Figures* figures, std::string* error);

}  // namespace memrep::nimbus_import
