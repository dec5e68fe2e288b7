// memrep_bench's command line. The flags it shares with RocksDB's
// memtablerep_bench keep their names and meanings (--benchmarks,
// --memtablerep, --num_operations, --num_threads, --item_size, --num_scans,
// --seed, --bucket_count, --prefix_length, --write_buffer_size); the rest are
// memrep's. A --memtablerep word may also be a memrep options string
// ("id=memrep.SortedHash;max_runs=4"; reps.h). Every flag is --name=value
// (or -name=value); a bad one is an error that names it, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "key_generator.h"
#include "memrep/status.h"
#include "reps.h"

namespace memrep::bench {

// What the workloads drive a rep through (--face).
enum class BenchFace {
  kRep,         // rocksdb::MemTableRep, rows: every rep (the default)
  kStandalone,  // memrep::MemTable for memrep's reps; RocksDB's stay at the rep level
  kTrieTable,   // reads from memrep::TrieTable, a trie memtable frozen into a table file
};

// $TMPDIR, else /tmp.
std::string DefaultTableDir();

struct Flags {
  std::vector<std::string> benchmarks = {"fillrandom", "readrandom"};
  std::vector<std::string> reps = DefaultReps();  // bench names (reps.h)
  // Bench name -> the memrep options string --memtablerep gave for it.
  std::map<std::string, std::string> rep_options;
  uint64_t num_operations = 1000000;
  uint32_t num_threads = 1;
  uint32_t item_size = 100;
  uint32_t key_size = 16;
  // > 0: every key begins with this many bytes of one shared text (entry_codec.h).
  uint32_t shared_prefix = 0;
  uint32_t batch_size = 100;  // records per batch of fillbatch, keys per batch of multiget
  BenchFace face = BenchFace::kRep;
  uint32_t num_scans = 10;
  uint64_t seed = 0;
  KeyDistribution key_distribution = KeyDistribution::kUniform;
  double zipf_theta = 0.99;
  double read_miss_ratio = 0.5;
  uint32_t versions_per_key = 10;
  uint32_t repeats = 3;
  std::string json_path;
  std::string csv_path;
  uint64_t bucket_count = 1000000;
  uint32_t prefix_length = 8;
  uint64_t write_buffer_size = 0;
  uint64_t arena_block_size = uint64_t{1} << 20;
  bool freeze_before_reads = false;
  // --face=trie_table: where the table files are made (and removed).
  std::string table_dir = DefaultTableDir();
  uint32_t latency_sample_every = 64;
  bool progress = true;
  bool list_reps = false;       // print the known reps as JSON and exit
  bool calibrate_auto = false;  // measure memrep.Auto's cost table (calibrate.h) and exit
};

// Parses argv[1..argc). Sets *help (and returns OK) for --help.
Status ParseFlags(int argc, const char* const* argv, Flags* flags, bool* help);

// The --help text: every flag, its default and what it does.
std::string Usage();

// What RepFactory::Make needs from the flags.
RepConfig RepConfigOf(const Flags& flags);

// "rep", "standalone" or "trie_table".
const char* FaceName(BenchFace face);

// "a,b,c" from a list.
std::string JoinList(const std::vector<std::string>& items);

}  // namespace memrep::bench
