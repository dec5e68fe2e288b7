// Node: the sorted hash rep's header in front of each row, in the same
// allocation of the rep's RowRegion, so an insert costs one allocation and 8
// bytes of header.
//
//   [ list_next (4) | bucket_next (4) | row bytes ... ]   links are RowRefs
//
// list_next comes first: it is the write-list link every node of a RunIndex
// begins with (runs/write_list.h).
#pragma once

#include <atomic>

#include "memory/row_region.h"

namespace memrep::sorted_hash {

using memory::RowRef;
using memory::RowRegion;

struct Node {
  // The node pushed before this one on the same write-list shard. Plain: it is
  // written before the release CAS that publishes the node and never again.
  RowRef list_next = 0;
  // The next node of the same hash bucket, in internal-key order. Written with
  // relaxed stores before the node is published, and only read after an
  // acquire load of the link that published it.
  std::atomic<RowRef> bucket_next{0};

  const char* row() const { return reinterpret_cast<const char*>(this + 1); }
};
static_assert(sizeof(Node) == 8, "the header is two 4-byte links");
static_assert(offsetof(Node, list_next) == 0, "the write-list link comes first");
static_assert(RowRegion::kUnit % alignof(Node) == 0, "region units align nodes");

// The node a reference names, or nullptr for 0.
inline Node* NodeAt(const RowRegion& region, RowRef ref) {
  return ref == 0 ? nullptr : reinterpret_cast<Node*>(region.At(ref));
}

}  // namespace memrep::sorted_hash
