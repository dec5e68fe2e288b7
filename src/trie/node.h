// The trie's objects, as they lie in its region: everything is addressed by
// a Ref (a 4-byte offset from the region's base, in 4-byte units), so the
// bytes mean the same in anonymous memory, on huge pages or in a file.
//
//   Ref:  bit 31 set: a leaf; bits 0..30: offset / 4 (at most 8 GiB). 0: none.
//
//   inner node (20-byte header, then its kind's arrays):
//     +0  lock      u32 atomic  bit 0 locked, bit 1 obsolete (replaced)
//     +4  kind      u8          K2, K4, K16, K48, K256
//     +5  count     u8 atomic   K2/K4/K16/K48: slots used (appended, never moved)
//     +6  inline    u8          the prefix's length if its bytes are in `prefix`
//                               (0..4), kLeafPrefix if a leaf's key holds them
//     +8  value     u32 atomic  the leaf whose key ends at end_depth, or 0
//     +12 end_depth u32         key bytes [0, end_depth) are the node's path;
//                               the node compresses the ones after the depth
//                               it is reached at (a Patricia skip)
//     +16 prefix    u32         inline bytes, or the Ref of a leaf whose key
//                               holds the prefix (any leaf below the node)
//     K2:   labels[2]+2 children[2]    (32 bytes)  labels unsorted
//     K4:   labels[4]   children[4]    (40 bytes)  labels unsorted
//     K16:  labels[16]  children[16]   (100 bytes) labels unsorted
//     K48:  index[256]  children[48]   (468 bytes) index[label] = slot + 1
//     K256: children[256]              (1044 bytes) by label
//
//   leaf, rows (the RocksDB face): a key's newest row's cell; the slot that
//     names it is the head of the key's versions, newest first:
//     +0 next u32 atomic (next older version) | +4 row: varint klen |
//     user key | tag | varint vlen | value. Every version is such a cell.
//   leaf, views (the standalone face):
//     +0 from u32 (the depth its key bytes start at) | +4 head u32 atomic
//     (newest version) | +8 key_len u32 (the whole user key's length) |
//     +12 key[from..key_len)
//   version, views: +0 next u32 atomic | +4 value_len u32 | +8 tag u64 |
//     +16 value bytes
//
// What changes after an object is published (a release store of its Ref):
// a node's lock, count, value and child slots; a leaf's head; a version's
// next. Everything else is written before publication and never again, so
// readers read it without atomics.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace memrep::trie {

using Ref = uint32_t;
inline constexpr Ref kLeafBit = uint32_t{1} << 31;
inline constexpr uint64_t kUnit = 4;
inline constexpr uint64_t kMaxRegionBytes = uint64_t{kLeafBit} * kUnit;  // 8 GiB

inline bool IsLeaf(Ref r) { return (r & kLeafBit) != 0; }
inline uint64_t OffsetOf(Ref r) { return uint64_t{r & ~kLeafBit} * kUnit; }

enum class Kind : uint8_t { kK2 = 0, kK4 = 1, kK16 = 2, kK48 = 3, kK256 = 4 };
inline constexpr int kKinds = 5;
inline constexpr uint32_t kLocked = 1, kObsolete = 2;
inline constexpr uint8_t kLeafPrefix = 0xff;

struct NodeHeader {
  std::atomic<uint32_t> lock;
  Kind kind;
  std::atomic<uint8_t> count;
  uint8_t inline_len;
  uint8_t spare;
  std::atomic<Ref> value;
  uint32_t end_depth;
  uint32_t prefix;
};
static_assert(sizeof(NodeHeader) == 20);

inline constexpr uint32_t kCapacity[kKinds] = {2, 4, 16, 48, 256};
// Small kinds (K2, K4, K16): labels at the header's end, children after them.
inline constexpr uint32_t kLabelsAt = sizeof(NodeHeader);
inline constexpr uint32_t kSmallChildrenAt[3] = {kLabelsAt + 4, kLabelsAt + 4, kLabelsAt + 16};
// K48: the index, then the children. K256: the children.
inline constexpr uint32_t kIndexAt = sizeof(NodeHeader);
inline constexpr uint32_t kChildren48At = kIndexAt + 256;
inline constexpr uint32_t kChildren256At = sizeof(NodeHeader);
inline constexpr uint32_t kNodeBytes[kKinds] = {
    kSmallChildrenAt[0] + 2 * 4, kSmallChildrenAt[1] + 4 * 4, kSmallChildrenAt[2] + 16 * 4,
    kChildren48At + 48 * 4, kChildren256At + 256 * 4};
static_assert(kNodeBytes[0] == 32 && kNodeBytes[1] == 40 && kNodeBytes[2] == 100 &&
              kNodeBytes[3] == 468 && kNodeBytes[4] == 1044);

inline bool IsSmall(Kind k) { return k <= Kind::kK16; }
inline uint8_t* Labels(NodeHeader* n) { return reinterpret_cast<uint8_t*>(n) + kLabelsAt; }
inline const uint8_t* Labels(const NodeHeader* n) {
  return reinterpret_cast<const uint8_t*>(n) + kLabelsAt;
}
// The child slots of any kind.
inline std::atomic<Ref>* Children(NodeHeader* n) {
  const uint32_t at = IsSmall(n->kind)        ? kSmallChildrenAt[static_cast<int>(n->kind)]
                      : n->kind == Kind::kK48 ? kChildren48At
                                              : kChildren256At;
  return reinterpret_cast<std::atomic<Ref>*>(reinterpret_cast<char*>(n) + at);
}
inline const std::atomic<Ref>* Children(const NodeHeader* n) {
  return Children(const_cast<NodeHeader*>(n));
}
inline std::atomic<uint8_t>* Index48(NodeHeader* n) {
  return reinterpret_cast<std::atomic<uint8_t>*>(reinterpret_cast<char*>(n) + kIndexAt);
}
inline const std::atomic<uint8_t>* Index48(const NodeHeader* n) {
  return Index48(const_cast<NodeHeader*>(n));
}

// Cells and leaves.
struct RowCell {
  std::atomic<Ref> next;
  // the row follows
};
inline constexpr size_t kRowCellHeader = 4;

struct ViewLeaf {
  uint32_t from;
  std::atomic<Ref> head;
  uint32_t key_len;
  // key bytes [from, key_len) follow
};
inline constexpr size_t kViewLeafHeader = 12;

struct ViewVersion {
  std::atomic<Ref> next;
  uint32_t value_len;
  uint32_t tag_lo, tag_hi;  // 4-byte aligned halves of the tag
  // value bytes follow
  uint64_t tag() const { return uint64_t{tag_hi} << 32 | tag_lo; }
};
inline constexpr size_t kViewVersionHeader = 16;

inline constexpr uint64_t RoundUp4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }

}  // namespace memrep::trie
