// Node: the sorted hash rep's per-entry header, placed in front of the entry in
// the same allocation of the rep's NodeRegion, so an insert costs one
// allocation and 8 bytes of header.
//
//   [ bucket_next (4) | list_next (4) | entry bytes ... ]   links are NodeRefs
#pragma once

#include <atomic>

#include "sorted_hash/node_region.h"

namespace memrep::sorted_hash {

struct Node {
  // The next node of the same hash bucket, in internal-key order. Written with
  // relaxed stores before the node is published, and only read after an
  // acquire load of the link that published it.
  std::atomic<NodeRef> bucket_next{0};
  // The node pushed before this one on the same write-list shard. Plain: it is
  // written before the release CAS that publishes the node and never again.
  NodeRef list_next = 0;

  char* entry() { return reinterpret_cast<char*>(this + 1); }
  const char* entry() const { return reinterpret_cast<const char*>(this + 1); }
};
static_assert(sizeof(Node) == 8, "the header is two 4-byte links");
static_assert(NodeRegion::kUnit % alignof(Node) == 0, "region units align nodes");

// The node a reference names, or nullptr for 0.
inline Node* NodeAt(const NodeRegion& region, NodeRef ref) {
  return ref == 0 ? nullptr : reinterpret_cast<Node*>(region.At(ref));
}

// The reference of a node's entry: the unit after its header, in the same
// chunk, since a node (header and a non-empty entry) never starts in a
// chunk's last unit.
inline NodeRef EntryRef(NodeRef node) { return node + sizeof(Node) / NodeRegion::kUnit; }
static_assert(sizeof(Node) % NodeRegion::kUnit == 0, "an entry starts on a unit");

}  // namespace memrep::sorted_hash
