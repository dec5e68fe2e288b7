// The reps memrep_bench runs, all through rocksdb::MemTableRepFactory and
// rocksdb::MemTableRep, so that one code path drives every one of them:
//
//   - RocksDB's own reps, from one table in reps.cc (skip_list, vector,
//     hash_skiplist, hash_linkedlist), each with its names and the
//     memrep::RepTraits the bench reads for it;
//   - every rep of memrep's registry (memrep::ListReps()), built by the
//     plugin's rocksdb_plugin::NewRepFactory from an options string;
//   - except the registry's *standalone peers* (peers/peers.h): other
//     projects' memtables that memrep_bench registers as reps of the view
//     functions only. They have no RocksDB face: memrep::MemTable runs them
//     under --face=standalone, from their options string, and the other
//     faces skip them. They are not memrep's (KnownRep::memrep is false).
//
// No rep is recognised by its name: what the bench does differently for a rep
// (skip a workload, check that memrep's rep was built) follows its traits and
// where it comes from.
//
// Names. A rep's *bench name* labels it in --memtablerep, the table and the
// JSON: RocksDB's from the table; a memrep rep's is its first alias
// ("sorted_hash"), else its canonical name ("memrep.SortedHash"). Its
// canonical name and aliases are accepted too, and so is a memrep options
// string ("id=memrep.SortedHash;max_runs=4", "memrep.SortedHash:4096"),
// which still runs under the rep's bench name.
//
// The hash reps bucket entries by a prefix of the user key and need a prefix
// extractor: NewFixedPrefixTransform(prefix_length). With the default
// prefix_length of 8 the prefix is the whole key number, so each bucket holds
// the versions of one key, as in RocksDB's memtablerep_bench.
#pragma once

#include <rocksdb/memtablerep.h>
#include <rocksdb/slice_transform.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "key_comparator.h"
#include "memrep/rep.h"
#include "memrep/status.h"
#include "shim_arena.h"

namespace memrep::bench {

// One rep the bench can run.
struct KnownRep {
  std::string name;                  // the bench name
  std::string canonical_name;        // RocksDB's factory Name(), or memrep's registry name
  std::vector<std::string> aliases;  // other accepted names
  std::string description;           // one line
  bool memrep = false;               // from memrep's registry (built by its plugin)
  RepTraits traits;
  // A standalone peer (peers/peers.h): in memrep's registry, but no RocksDB
  // face; runs through memrep::MemTable only. memrep is false.
  bool standalone_peer = false;
  // Keeps one version per user key (StandalonePeer::single_version).
  bool single_version = false;
};

// Every rep: RocksDB's, then memrep's in ListReps() order (standalone peers
// after memrep's own); also the order `--memtablerep=all` runs them. Read
// from the registry at each call.
std::vector<KnownRep> KnownReps();
std::vector<std::string> KnownRepNames();
// What --memtablerep runs by default: RocksDB's default rep and memrep's first.
std::vector<std::string> DefaultReps();

// What a --memtablerep word names.
struct RepChoice {
  std::string name;     // the bench name
  std::string options;  // the memrep options string the word is, or "" (a plain name)
};
// InvalidArgument if the word names no rep, or is a memrep options string
// that memrep refuses (its message says why). A standalone peer takes an
// options string as memrep's reps do.
Status ResolveRep(std::string_view word, RepChoice* out);

struct RepConfig {
  uint64_t bucket_count = 1000000;  // RocksDB's hash reps
  uint32_t prefix_length = 8;       // their prefix extractor
  // The write_buffer_size memrep's reps are validated (and so sized) for;
  // 0 means "what this run will hold" (the expected_arena_bytes passed to
  // RepFactory::Make), at least kMinWriteBufferSize.
  uint64_t write_buffer_size = 0;
  // Bench name -> the options string --memtablerep gave for that memrep rep.
  std::map<std::string, std::string> rep_options;
  size_t arena_block_size = ShimArena::kDefaultBlockSize;

  static constexpr uint64_t kMinWriteBufferSize = uint64_t{64} << 10;
};

class BenchRep;

// One rep's factory and what the bench must know about the rep.
class RepFactory {
 public:
  // `word`: a --memtablerep word (a name, an alias or an options string); a
  // plain name takes its options from config.rep_options. expected_arena_bytes:
  // about how much the run will allocate (sizes memrep's reps when
  // config.write_buffer_size is 0). InvalidArgument for an unknown rep, bad
  // options, or options the factory's ValidateOptions refuses.
  static Status Make(std::string_view word, const RepConfig& config, uint64_t expected_arena_bytes,
                     std::unique_ptr<RepFactory>* out);

  const std::string& name() const { return name_; }  // the bench name
  const RepTraits& traits() const { return traits_; }
  bool memrep() const { return memrep_; }
  // A standalone peer: no RocksDB factory (rocksdb_factory() and NewRep are
  // not for it); memrep_options() opens it through memrep::MemTable.
  bool standalone_peer() const { return standalone_peer_; }
  // Keeps one version per user key (a standalone peer that says so).
  bool single_version() const { return single_version_; }
  // The factory with its effective options, e.g. "id=memrep.SortedHash;...".
  const std::string& description() const { return description_; }
  // REQUIRES: !standalone_peer().
  const ROCKSDB_NAMESPACE::MemTableRepFactory& rocksdb_factory() const { return *factory_; }
  // memrep's reps and standalone peers: the options string the factory was
  // built from (a name, an alias or "id=...;..."), which
  // memrep::MemTableOptions::rep takes too.
  const std::string& memrep_options() const { return memrep_options_; }
  // The write_buffer_size the factory was validated (and memrep's reps sized) for.
  uint64_t write_buffer_size() const { return write_buffer_size_; }

  // A new, empty rep on a new ShimArena; times the creation.
  // InvalidArgument for a standalone peer (it has no RocksDB face).
  Status NewRep(std::unique_ptr<BenchRep>* out) const;

 private:
  RepFactory() = default;

  std::string name_;
  std::string description_;
  std::string memrep_options_;
  uint64_t write_buffer_size_ = 0;
  RepTraits traits_;
  bool memrep_ = false;
  bool standalone_peer_ = false;
  bool single_version_ = false;
  std::shared_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> factory_;
  // Referenced by every rep made; each BenchRep shares them, so a rep may
  // outlive its factory.
  std::shared_ptr<const ROCKSDB_NAMESPACE::SliceTransform> prefix_extractor_;
  std::shared_ptr<const InternalKeyOrder> order_ = std::make_shared<InternalKeyOrder>();
  size_t arena_block_size_ = ShimArena::kDefaultBlockSize;
};

// A live rep with its arena and what it references (key order, prefix
// extractor). Destroy() (or the destructor) frees the rep, then the arena.
class BenchRep {
 public:
  ~BenchRep() { Destroy(); }

  ROCKSDB_NAMESPACE::MemTableRep& rep() { return *rep_; }
  ShimArena& arena() { return *arena_; }
  double create_micros() const { return create_micros_; }

  // Bytes this rep costs: its share of the arena (handed out, with alignment
  // padding) plus ApproximateMemoryUsage (what it holds outside the arena).
  size_t MemoryBytes() { return arena_->BytesUsed() + rep_->ApproximateMemoryUsage(); }

  // Destroys the rep, then its arena; returns the microseconds it took.
  double Destroy();

 private:
  friend class RepFactory;
  BenchRep() = default;

  std::shared_ptr<const InternalKeyOrder> order_;
  std::shared_ptr<const ROCKSDB_NAMESPACE::SliceTransform> prefix_extractor_;
  std::unique_ptr<ShimArena> arena_;
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep> rep_;  // destroyed first
  double create_micros_ = 0;
};

}  // namespace memrep::bench
