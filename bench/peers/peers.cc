#include "peers/peers.h"

#include <deque>
#include <mutex>

namespace memrep::bench {

#ifdef MEMREP_PEER_SKIP_LIST_NDEBUG
// peers/skip_list_ndebug.cc
ROCKSDB_NAMESPACE::MemTableRepFactory* NewSkipListNdebugFactory();
#endif
#ifdef MEMREP_PEER_TOPLING_CSPP
// peers/topling_cspp.cc
ROCKSDB_NAMESPACE::MemTableRepFactory* NewToplingCsppFactory();
#endif

const std::vector<PeerRep>& PeerReps() {
  using Cost [[maybe_unused]] = RepTraits::Cost;
  static const std::vector<PeerRep> peers = {
#ifdef MEMREP_PEER_SKIP_LIST_NDEBUG
      {"skip_list_ndebug",
       "SkipListFactoryNdebug",
       {},
       "RocksDB's skip list compiled from RocksDB " MEMREP_PEER_ROCKSDB_VERSION
       "'s source without assertions (a release build's)",
       RepTraits{.concurrent_insert = true,
                 .duplicates = RepTraits::Duplicates::kAll,
                 .point_read_while_mutable = Cost::kLogarithmic,
                 .new_iterator_while_mutable = Cost::kConstant},
       &NewSkipListNdebugFactory},
#endif
#ifdef MEMREP_PEER_TOPLING_CSPP
      {"topling_cspp",
       "topling_cspp",
       {},
       "ToplingDB's CSPP trie (topling-zip " MEMREP_PEER_TOPLING_ZIP_COMMIT
       ") behind rocksdb::MemTableRep",
       RepTraits{.concurrent_insert = true,
                 .point_read_while_mutable = Cost::kLogarithmic,
                 .new_iterator_while_mutable = Cost::kConstant},
       &NewToplingCsppFactory},
#endif
  };
  return peers;
}

namespace {

struct StandalonePeers {
  std::mutex mu;
  std::deque<StandalonePeer> peers;  // a deque: pointers to its elements stay valid
};

StandalonePeers& TheStandalonePeers() {
  static StandalonePeers* peers = new StandalonePeers();  // never destroyed
  return *peers;
}

}  // namespace

void AddStandalonePeer(StandalonePeer peer) {
  StandalonePeers& all = TheStandalonePeers();
  std::lock_guard<std::mutex> lock(all.mu);
  all.peers.push_back(std::move(peer));
}

const StandalonePeer* FindStandalonePeer(std::string_view canonical_name) {
  StandalonePeers& all = TheStandalonePeers();
  std::lock_guard<std::mutex> lock(all.mu);
  for (const StandalonePeer& peer : all.peers) {
    if (peer.canonical_name == canonical_name) return &peer;
  }
  return nullptr;
}

}  // namespace memrep::bench
