// Node: the sorted hash rep's per-entry header, placed in front of the entry in
// the same allocation, so an insert costs one allocation.
//
//   [ bucket_next (8) | list_next (8) | entry bytes ... ]
#pragma once

#include <atomic>

namespace memrep::sorted_hash {

struct Node {
  // The next node of the same hash bucket, in internal-key order. Written with
  // relaxed stores before the node is published, and only read after an
  // acquire load of the pointer that published it.
  std::atomic<Node*> bucket_next{nullptr};
  // The node pushed before this one on the same write-list shard. Plain: it is
  // written before the release CAS that publishes the node and never again.
  Node* list_next = nullptr;

  char* entry() { return reinterpret_cast<char*>(this + 1); }
  const char* entry() const { return reinterpret_cast<const char*>(this + 1); }
};
static_assert(sizeof(Node) == 16, "the header is two pointers");

}  // namespace memrep::sorted_hash
