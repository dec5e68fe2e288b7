// Peers: other projects' memtables that memrep_bench runs beside memrep's
// reps, built only when their source is given at configure time
// (bench/README.md, "Peers"):
//
//   -DMEMREP_PEER_ROCKSDB_SOURCE=<dir>  RocksDB's source of the installed
//       librocksdb's version (Debian's source package): skip_list_ndebug,
//       RocksDB's skip-list rep compiled from that source without assertions,
//       as a release build of RocksDB has it.
//   -DMEMREP_PEER_TOPLING_ZIP=<dir>     a checkout of ToplingDB's topling-zip:
//       topling_cspp, its concurrent Patricia trie (CSPP) behind
//       rocksdb::MemTableRep.
//   -DMEMREP_PEER_COLUMNAR_MEMTABLE=<dir>  a checkout of
//       conanhujinming/columnar_memtable: columnar_memtable, its sharded
//       columnar memtable behind memrep's views (a standalone peer, below).
//
// A peer is driven through rocksdb::MemTableRepFactory like RocksDB's own
// reps; it takes no options string. A *standalone peer* has no RocksDB face:
// it is a memrep::Rep of the view functions only, registered in memrep's
// registry by memrep_bench alone (its adapter is linked into the executable,
// not into memrep_bench_lib, so the bench's tests and every other user of
// the library never see it), and run through memrep::MemTable by
// --face=standalone; the rep level and --face=trie_table skip it.
#pragma once

#include <rocksdb/memtablerep.h>

#include <string>
#include <string_view>
#include <vector>

#include "memrep/rep.h"

namespace memrep::bench {

struct PeerRep {
  std::string name;                  // the bench name
  std::string canonical_name;        // its factory's Name(), unique among every rep
  std::vector<std::string> aliases;  // other accepted names
  std::string description;           // one line: what it is and where it was built from
  RepTraits traits;
  ROCKSDB_NAMESPACE::MemTableRepFactory* (*make)();
};

// The peers this memrep_bench was built with; empty when none was configured.
const std::vector<PeerRep>& PeerReps();

// What the bench must know of a standalone peer beyond its registration
// (name, aliases, summary, traits, options: memrep's registry has them).
struct StandalonePeer {
  std::string canonical_name;  // its registry name
  // One version per user key: a write overwrites the key's record, whatever
  // its sequence, so the workloads that check several versions of a key
  // (overwrite, readwrite, seekwhilewriting, mix8020) cannot pass and are skipped.
  bool single_version = false;
};

// Marks a rep of memrep's registry as a standalone peer. Called by the peer's
// adapter at static initialization, beside its registry::Register; safe from
// any thread.
void AddStandalonePeer(StandalonePeer peer);
// The standalone peer with this registry name, or nullptr (a rep of
// memrep's own, or one another program registered).
const StandalonePeer* FindStandalonePeer(std::string_view canonical_name);

}  // namespace memrep::bench
