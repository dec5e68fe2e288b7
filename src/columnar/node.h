// Node: the columnar rep's header in front of each row, in the same
// allocation of the rep's RowRegion: an insert is one allocation, and the
// row, its version link and its write-list link share a cache line.
//
//   [ list_next (4) | older (4) | row: varint klen | key | tag | varint vlen | value ]
//
// list_next comes first: it is the write-list link every node of a RunIndex
// begins with (runs/write_list.h). older links the versions of one user key,
// newest first (column_index.h). Rows are RocksDB's row format in both faces:
// RocksDB writes them (Allocate); the standalone face encodes them (EncodeRow).
#pragma once

#include <atomic>
#include <cstddef>
#include <string_view>

#include "format/key_order.h"
#include "memory/row_region.h"
#include "memrep/entry.h"

namespace memrep::columnar {

using memory::RowRef;
using memory::RowRegion;

struct Node {
  // The node pushed before this one on the same write-list shard. Plain: it is
  // written before the release operation that publishes the node on the
  // write list and never again; only the run index reads it.
  RowRef list_next = 0;
  // The next older version of the same user key, or 0. Written (relaxed)
  // before the index's release CAS that links the node, and by later links
  // of older versions (release CAS); read with acquire (column_index.h).
  std::atomic<RowRef> older{0};

  const char* row() const { return reinterpret_cast<const char*>(this + 1); }
  char* row() { return reinterpret_cast<char*>(this + 1); }
  // The row's user key; its tag (sequence << 8 | type) in *tag.
  std::string_view user_key(uint64_t* tag) const { return format::RowUserKey(row(), tag); }
  SequenceNumber sequence() const {
    uint64_t tag;
    format::RowUserKey(row(), &tag);
    return TagSequence(tag);
  }
};
static_assert(sizeof(Node) == 8, "the header is two 4-byte links");
static_assert(offsetof(Node, list_next) == 0, "the write-list link comes first");

// Nodes are placed in 4-byte units (a row wastes at most 3 bytes of padding).
constexpr size_t kNodeUnitBytes = 4;
static_assert(kNodeUnitBytes % alignof(Node) == 0, "region units align nodes");

// The node a reference names. REQUIRES: ref != 0, published to this thread.
inline Node* NodeAt(const RowRegion& region, RowRef ref) {
  return reinterpret_cast<Node*>(region.At(ref));
}

}  // namespace memrep::columnar
