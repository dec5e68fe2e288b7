// memrep.Auto: the rep chosen per memtable from the workload it sees.
//
// Every memtable built as memrep.Auto keeps cheap statistics of what is asked
// of it (WorkloadStats). When the next memtable of the same *lineage* (a
// RocksDB column family's factory, or a sequence of memrep::MemTable that
// share one RepLineage) is made, a policy weighs the statistics of the last
// few memtables with each candidate rep's measured costs and picks the rep
// for it, with hysteresis. docs/auto.md gives the statistics, the cost and
// decision tables and the cost of keeping statistics (their runs:
// docs/results/2026-11-26-auto.md).
//
// Open it by name ("memrep.Auto", "auto") or with options
// ("id=memrep.Auto; candidates=sorted_hash,vector; pin=vector"); from C++,
// fill AutoOptions and pass Spec() wherever a rep is named.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memrep/export.h"
#include "memrep/status.h"

namespace memrep {

struct MEMREP_EXPORT AutoOptions {
  static constexpr const char* kName = "memrep.Auto";

  // The reps Auto may choose among: a comma list of rep names or aliases,
  // each built with its defaults. Reps that cannot serve the memtable's
  // comparator are left out of the choice for it. The first that can is the
  // start rep unless `start` says otherwise: the trie, the best all-rounder
  // measured (docs/auto.md), then the sorted hash for other orders.
  std::string candidates = "memrep.Trie,memrep.SortedHash,memrep.Vector,memrep.Columnar";
  // One of the candidates to use for every memtable ("" : choose). Statistics
  // are still kept and decisions still counted.
  std::string pin;
  // The rep of a lineage's first memtable, which has no history to learn
  // from ("" : the first candidate).
  std::string start;
  // cost: the policy of docs/auto.md. rotate: each memtable takes the next
  // candidate in turn, whatever the workload (for tests that must see every
  // rep and every switch).
  std::string policy = "cost";
  // Hysteresis: the rep changes only if another candidate's estimated cost
  // is at least this many percent below the current rep's.
  uint32_t margin_percent = 15;
  // How much a nanosecond of a rep's background work (sorting, merging),
  // and of reads of it once frozen (the flush's scan, reads of the
  // immutable memtable), counts against one of the writer's, in percent:
  // 100 where every core is busy (a small machine, or RocksDB's flushes and
  // compactions beside the writers), 0 where cores are spare (docs/auto.md).
  uint32_t background_weight_percent = 100;
  // How many recent memtables the policy weighs (newest counts most: weights
  // 1, 1/2, 1/4, ...).
  uint32_t history = 2;
  // Learning (docs/auto.md, "Learning"): each memtable times a sample of its
  // rep's calls, and the policy prices each candidate from what was measured
  // on this machine, the cost table being the prior. false: the prior alone.
  bool learn = true;
  // At most this share of a lineage's last 16 memtables may try a candidate
  // that no measurement covers for the current workload.
  uint32_t explore_percent = 20;
  // The prior: "rep:insert/concurrent_insert/batch_entry/get/seek/step/
  // background,..." in ns (memrep_bench --calibrate_auto prints it for this
  // machine); the reps it lists replace their rows of the built-in table.
  std::string prior;
  // A file where the lineage keeps what it learned (measured costs, the rep
  // it settled on) across a reopen: read when its first memtable is made,
  // rewritten every 8 memtables and when the lineage is destroyed. "" : kept
  // in memory, in the lineage, only.
  std::string learned_file;

  static constexpr uint32_t kMaxMargin = 90;
  static constexpr uint32_t kMaxHistory = 16;
  static constexpr uint32_t kMaxBackgroundWeight = 400;
  static constexpr uint32_t kMaxExplorePercent = 50;

  // OK, or InvalidArgument naming the bad field and what is accepted.
  Status Validate() const;
  // "id=memrep.Auto; candidates=...; ...".
  std::string Spec() const;
};

// Sampled times of one kind of call of a memtable's rep: memrep.Auto times
// one call in a few of each kind on each thread (docs/auto.md, "Learning"),
// the clock's own cost taken off.
struct OpTimes {
  uint64_t timed = 0;  // calls (for batches: entries) timed
  uint64_t nanos = 0;  // their nanoseconds in all
  double mean() const { return timed == 0 ? 0.0 : static_cast<double>(nanos) / timed; }
};

// What one memtable was asked to do while it was the lineage's newest (the
// statistics stop being read when the next memtable is made). Counts are
// exact while at most 16 threads use the memtable at once; beyond that two
// threads may share a counter and lose an increment now and then.
struct WorkloadStats {
  uint64_t inserts = 0;               // single-writer inserts (Insert, Add), batches aside
  uint64_t concurrent_inserts = 0;    // InsertConcurrently, Add(concurrent), batches aside
  uint64_t batches = 0;               // AddBatch calls (the standalone face's Write)
  uint64_t batch_entries = 0;         // entries added by them
  uint64_t entry_bytes = 0;           // bytes of the inserted rows or entries
  uint64_t gets = 0;                  // point reads (Get, GetRows, Contains, MultiGet's keys)
  uint64_t sampled_gets = 0;          // point reads whose outcome was looked at (1 in 16)
  uint64_t sampled_hits = 0;          // of those, how many found their user key
  uint64_t iterators = 0;             // iterators made
  uint64_t seeks = 0;                 // positioning calls (Seek*, SeekToFirst/Last)
  uint64_t steps = 0;                 // Next and Prev calls
  uint64_t sampled_keys = 0;          // keys whose size was looked at (1 in 64 inserts)
  uint64_t sampled_key_bytes = 0;     // their bytes
  uint64_t sampled_shared_bytes = 0;  // bytes each shares with the writer's previous sample
  bool bytewise = true;               // the comparator allows a trie and a radix sort
  // Threads (thread shards) that wrote, and that only read; the reads of the
  // latter (a reader thread beside the writers, as in readwhilewriting).
  uint32_t writer_threads = 0;
  uint32_t reader_threads = 0;
  uint64_t reader_gets = 0;
  uint64_t reader_seeks = 0;
  uint64_t reader_steps = 0;
  uint64_t reader_iterators = 0;

  // What the rep's calls cost, sampled: the writers' (their reads included)
  // and the readers'. An insert's row Allocate (the RocksDB face) is timed
  // apart; a seek's iterator creation too.
  OpTimes insert_times;
  OpTimes concurrent_insert_times;
  OpTimes batch_entry_times;  // AddBatch, per entry
  OpTimes allocate_times;
  OpTimes get_times;
  OpTimes seek_times;
  OpTimes step_times;
  OpTimes iterator_times;  // NewIterator
  OpTimes reader_get_times;
  OpTimes reader_seek_times;
  OpTimes reader_step_times;
  OpTimes reader_iterator_times;
  // How long the threads were about: for each thread shard, the time from
  // its first timed call of this memtable to its last, summed over the
  // writers' shards and over the readers'. Less the time the sampled calls
  // give to the rep, that is what the threads spent outside this memtable
  // (docs/auto.md, "The policy", step 3).
  uint64_t writer_span_nanos = 0;
  uint64_t reader_span_nanos = 0;
  // CPU time of the rep's background work (Rep::BackgroundCpuNanos), final
  // once the memtable was destroyed.
  uint64_t background_nanos = 0;
  bool background_final = false;

  uint64_t writes() const { return inserts + concurrent_inserts + batch_entries; }
};

// One memtable's rep, as the policy chose it.
struct AutoDecision {
  uint64_t memtable = 0;  // 1 for the lineage's first memtable
  std::string rep;        // canonical name
  std::string previous;   // the rep of the memtable before ("" for the first)
  bool switched = false;  // rep != previous (and there was one before)
  // A trial: a candidate no measurement covered for the workload, tried to
  // measure it (docs/auto.md, "Trials").
  bool trial = false;
  std::string reason;  // one line: the statistics and costs that decided it
};

// What a lineage has decided so far.
struct AutoCounters {
  uint64_t memtables = 0;  // memtables made
  uint64_t switches = 0;   // of them, how many changed rep
  uint64_t trials = 0;     // of them, how many were trials
  // Memtables made with each candidate, in candidate order.
  std::vector<std::pair<std::string, uint64_t>> per_rep;
  // The most recent decisions, oldest first (at most 64).
  std::vector<AutoDecision> recent;
};

// The memtables of one column family, one after another: memrep.Auto keeps
// its history here. The RocksDB face keeps one per factory object (column
// families that share one factory object share it); the standalone face
// takes one in MemTableOptions::lineage. The faces only pass it on (they
// know it by a forward declaration); what is in it is memrep.Auto's, read
// with AutoCountersOf and NewestStatsOf below. Thread-safe.
class MEMREP_EXPORT RepLineage {
 public:
  // `id` names the lineage in a learned_file that several lineages share
  // (the RocksDB face: the column family id).
  explicit RepLineage(uint32_t id = 0);
  ~RepLineage();
  uint32_t id() const;
  RepLineage(const RepLineage&) = delete;
  RepLineage& operator=(const RepLineage&) = delete;

  // Internal: what memrep.Auto keeps here (src/auto/lineage.h).
  struct State;
  const std::shared_ptr<State>& state() const { return state_; }

 private:
  std::shared_ptr<State> state_;
};

// The decisions so far of `lineage`'s memrep.Auto memtables (empty counters
// until one is made).
MEMREP_EXPORT AutoCounters AutoCountersOf(const RepLineage& lineage);
// The statistics of `lineage`'s newest memrep.Auto memtable so far (all zero
// if none).
MEMREP_EXPORT WorkloadStats NewestStatsOf(const RepLineage& lineage);

}  // namespace memrep
