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
//
// A peer is driven through rocksdb::MemTableRepFactory like RocksDB's own
// reps; it takes no options string.
#pragma once

#include <rocksdb/memtablerep.h>

#include <string>
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

}  // namespace memrep::bench
