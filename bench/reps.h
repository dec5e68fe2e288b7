// The reps memrep_bench runs, all through rocksdb::MemTableRepFactory and
// rocksdb::MemTableRep, so that one code path drives every one of them:
//
//   skip_list        rocksdb::SkipListFactory                 (RocksDB's default)
//   vector           rocksdb::VectorRepFactory
//   hash_skiplist    rocksdb::NewHashSkipListRepFactory(bucket_count)
//   hash_linkedlist  rocksdb::NewHashLinkListRepFactory(bucket_count)
//   sorted_hash      memrep::rocksdb_plugin::NewSortedHashRepFactory  (memrep.SortedHash)
//
// The hash reps bucket entries by a prefix of the user key and need a prefix
// extractor: NewFixedPrefixTransform(prefix_length). With the default
// prefix_length of 8 the prefix is the whole key number, so each bucket holds
// the versions of one key, as in RocksDB's memtablerep_bench.
#pragma once

#include <rocksdb/memtablerep.h>
#include <rocksdb/slice_transform.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "key_comparator.h"
#include "memrep/status.h"
#include "shim_arena.h"

namespace memrep::bench {

// Canonical names, in the order `--memtablerep=all` runs them.
const std::vector<std::string>& KnownReps();
// The canonical name of a --memtablerep word (skiplist, prefix_hash,
// hashskiplist, hashlinklist, memrep.SortedHash are accepted too); "" if unknown.
std::string CanonicalRepName(std::string_view word);

struct RepConfig {
  uint64_t bucket_count = 1000000;  // hash_skiplist and hash_linkedlist
  uint32_t prefix_length = 8;       // their prefix extractor
  // sorted_hash: the memtable size it is sized for; 0 means "what this run
  // will hold" (the expected_arena_bytes passed to RepFactory::Make).
  uint64_t write_buffer_size = 0;
  std::string sorted_hash_options;  // "name=value;..." (SortedHashOptions::Set)
  size_t arena_block_size = ShimArena::kDefaultBlockSize;
};

class BenchRep;

// One rep's factory and what the bench must know about the rep.
class RepFactory {
 public:
  // expected_arena_bytes: about how much the run will allocate (sizes sorted_hash).
  static Status Make(const std::string& name, const RepConfig& config,
                     uint64_t expected_arena_bytes, std::unique_ptr<RepFactory>* out);

  const std::string& name() const { return name_; }
  bool concurrent_inserts() const { return factory_->IsInsertConcurrentlySupported(); }
  // A Get or a new iterator sorts a copy of every entry while the rep is
  // mutable (vector): O(n log n) per point read.
  bool sorts_per_read_while_mutable() const { return name_ == "vector"; }
  // A new iterator copies every entry into a sorted list (the hash reps).
  bool copies_per_iterator() const { return name_ == "vector" || name_.starts_with("hash_"); }
  const std::string& description() const { return description_; }

  // A new, empty rep on a new ShimArena; times the creation.
  Status NewRep(std::unique_ptr<BenchRep>* out) const;

 private:
  RepFactory() = default;

  std::string name_;
  std::string description_;
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> factory_;
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
