// The trie's objects, as they lie in its region: everything is addressed by
// a Ref (a 4-byte offset from the region's base, in 4-byte units), so the
// bytes mean the same in anonymous memory, on huge pages or in a file.
//
//   Ref:  bit 31 set: a leaf; bits 0..30: offset / 4 (at most 8 GiB). 0: none.
//
//   inner node (24-byte header, then its kind's arrays):
//     +0  lock      u32 atomic  bit 0 locked, bit 1 obsolete (replaced)
//     +4  kind      u8          K4, K16, K48, K256
//     +5  count     u8 atomic   K4/K16/K48: slots used (appended, never moved)
//     +8  value     u32 atomic  the leaf whose key ends at end_depth, or 0
//     +12 end_depth u32         key bytes [0, end_depth) are the node's path
//     +16 prefix_len u32        the last prefix_len bytes of the path are
//                               compressed into the node (a Patricia skip)
//     +20 prefix    u32         prefix_len <= 4: the bytes themselves;
//                               else the Ref of a leaf whose key has them
//     K4:   labels[4]   children[4]    (44 bytes)  labels unsorted
//     K16:  labels[16]  children[16]   (104 bytes) labels unsorted
//     K48:  index[256]  children[48]   (472 bytes) index[label] = slot + 1
//     K256: children[256]              (1048 bytes) by label
//
//   leaf, rows (the RocksDB face; the leaf is a key's first row's cell):
//     +0 next u32 atomic (next older version) | +4 head u32 atomic (newest
//     version) | +8 row: varint klen | user key | tag | varint vlen | value
//     Every version is such a cell; only a key's first one uses its head.
//   leaf, views (the standalone face):
//     +0 from u32 (the depth its key bytes start at) | +4 head u32 atomic |
//     +8 key_len u32 (the whole user key's length) | +12 key[from..key_len)
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

enum class Kind : uint8_t { kK4 = 0, kK16 = 1, kK48 = 2, kK256 = 3 };
inline constexpr int kKinds = 4;
inline constexpr uint32_t kLocked = 1, kObsolete = 2;

struct NodeHeader {
  std::atomic<uint32_t> lock;
  Kind kind;
  std::atomic<uint8_t> count;
  uint16_t spare;
  std::atomic<Ref> value;
  uint32_t end_depth;
  uint32_t prefix_len;
  uint32_t prefix;
};
static_assert(sizeof(NodeHeader) == 24);

struct Node4 {
  NodeHeader h;
  uint8_t labels[4];
  std::atomic<Ref> children[4];
};
struct Node16 {
  NodeHeader h;
  uint8_t labels[16];
  std::atomic<Ref> children[16];
};
struct Node48 {
  NodeHeader h;
  std::atomic<uint8_t> index[256];
  std::atomic<Ref> children[48];
};
struct Node256 {
  NodeHeader h;
  std::atomic<Ref> children[256];
};
static_assert(sizeof(Node4) == 44 && sizeof(Node16) == 104 && sizeof(Node48) == 472 &&
              sizeof(Node256) == 1048);

inline constexpr uint32_t kCapacity[kKinds] = {4, 16, 48, 256};
inline constexpr uint32_t kNodeBytes[kKinds] = {sizeof(Node4), sizeof(Node16), sizeof(Node48),
                                                sizeof(Node256)};

// Cells and leaves.
struct RowCell {
  std::atomic<Ref> next;
  std::atomic<Ref> head;
  // the row follows
};
inline constexpr size_t kRowCellHeader = 8;

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
