// Trie::Check: a walk of every node, leaf and version that verifies the
// structure's invariants (trie.h, node.h), for tests and for the images a
// crash leaves.
#include <string>
#include <vector>

#include "trie/trie.h"

namespace memrep::trie {

namespace {

std::string RefText(Ref r) { return (IsLeaf(r) ? "leaf@" : "node@") + std::to_string(OffsetOf(r)); }

}  // namespace

Status Trie::Check(uint64_t* entries, Census* census) const {
  Census counted;
  const uint64_t used = region_->used();
  auto in_region = [&](Ref r, uint64_t bytes) {
    return r != 0 && OffsetOf(r) >= sizeof(Meta) && OffsetOf(r) + bytes <= used;
  };
  // A leaf or a version: in the region (views), or a cell of the row region
  // (rows: a trie in memory, never an image; its references are not bounded).
  const bool rows = mode_ == Mode::kRows;
  auto cell_in = [&](Ref r, uint64_t bytes) {
    return rows ? (r & ~kLeafBit) != 0 : in_region(r, bytes);
  };
  // More versions than this on one key is a cycle (a version is 16 bytes or more).
  const uint64_t max_versions = (rows ? cells_->ChunkBytes() : used) / 8;
  uint64_t versions = 0;
  std::string key;  // the path's bytes so far
  struct Frame {
    Ref node;
    uint32_t depth;
    size_t key_size;
    int next;  // the next label to visit; -1: the value first
  };
  std::vector<Frame> stack;
  std::string last_key;
  bool have_last = false;

  auto check_leaf = [&](Ref leaf, const std::string& path_key) -> Status {
    if (!cell_in(leaf, 12))
      return Status::Corruption("a reference outside the region: " + RefText(leaf));
    const LeafKey lk = KeyBytes(leaf);
    if (lk.size < path_key.size() || lk.from > path_key.size() ||
        (!rows && OffsetOf(leaf) + 12 + (lk.size - lk.from) > used)) {
      return Status::Corruption(RefText(leaf) + " has a key shorter than its path");
    }
    for (uint32_t i = lk.from; i < path_key.size(); ++i) {
      if (lk.at(i) != static_cast<uint8_t>(path_key[i])) {
        return Status::Corruption(RefText(leaf) + "'s key differs from its path at byte " +
                                  std::to_string(i));
      }
    }
    std::string full = path_key;
    for (uint32_t i = static_cast<uint32_t>(path_key.size()); i < lk.size; ++i)
      full.push_back(char(lk.at(i)));
    if (have_last && !(last_key < full)) {
      return Status::Corruption(RefText(leaf) + "'s key is out of order");
    }
    last_key = full;
    have_last = true;
    uint64_t prev_seq = 0;
    bool first = true;
    uint64_t n = 0;
    for (Ref v = Head(leaf); v != 0; v = Next(v)) {
      if (!cell_in(v, 16)) return Status::Corruption("a version outside the region: " + RefText(v));
      if (rows) {
        uint64_t tag;
        const std::string_view vk = format::RowUserKey(Row(v), &tag);
        if (vk != full)
          return Status::Corruption("a version of " + RefText(leaf) + " has another key");
      }
      const uint64_t seq = Sequence(v);
      if (!first && seq >= prev_seq) {
        return Status::Corruption(RefText(leaf) +
                                  "'s versions are not in descending sequence order");
      }
      first = false;
      prev_seq = seq;
      if (++n > max_versions) {
        return Status::Corruption(RefText(leaf) + "'s versions form a cycle");
      }
    }
    if (n == 0) return Status::Corruption(RefText(leaf) + " has no version");
    counted.leaves++;
    versions += n;
    return Status::OK();
  };

  stack.push_back(Frame{root_, 0, 0, -1});
  while (!stack.empty()) {
    Frame& f = stack.back();
    const NodeHeader* n = NodeAt(f.node);
    if (f.next == -1) {
      if (!in_region(f.node, sizeof(NodeHeader)) || static_cast<int>(n->kind) >= kKinds ||
          OffsetOf(f.node) + kNodeBytes[static_cast<int>(n->kind)] > used) {
        return Status::Corruption("a bad node: " + RefText(f.node));
      }
      if (n->kind != Kind::kK256 && n->count.load() > kCapacity[static_cast<int>(n->kind)]) {
        return Status::Corruption(RefText(f.node) + " counts more children than it holds");
      }
      if (n->end_depth < f.depth ||
          (n->inline_len != kLeafPrefix &&
           (n->inline_len > 4 || n->end_depth - n->inline_len > f.depth))) {
        return Status::Corruption(RefText(f.node) + "'s prefix does not cover its depth");
      }
      if (n->inline_len == kLeafPrefix) {
        if (!IsLeaf(n->prefix) || !cell_in(n->prefix, 12)) {
          return Status::Corruption(RefText(f.node) + "'s prefix is not held by a leaf");
        }
        const LeafKey pk = KeyBytes(n->prefix);
        if (pk.from > f.depth || pk.size < n->end_depth) {
          return Status::Corruption(RefText(f.node) + "'s prefix leaf does not hold its prefix");
        }
      }
      counted.nodes[static_cast<int>(n->kind)]++;
      counted.node_bytes += kNodeBytes[static_cast<int>(n->kind)];
      key.resize(f.key_size);
      for (uint32_t i = f.depth; i < n->end_depth; ++i) key.push_back(char(PrefixByte(n, i)));
      f.key_size = key.size();
      const Ref v = n->value.load();
      if (v != 0) {
        if (!IsLeaf(v)) return Status::Corruption(RefText(f.node) + "'s value is not a leaf");
        Status s = check_leaf(v, key);
        if (!s.ok()) return s;
        if (KeyBytes(v).size != key.size()) {
          return Status::Corruption(RefText(v) + " is a node's value but its key is longer");
        }
      }
      f.next = 0;
    }
    Ref child = 0;
    const int l = f.next < 256 ? FirstChild(n, f.next, &child) : -1;
    if (l < 0) {
      stack.pop_back();
      continue;
    }
    f.next = l + 1;
    key.resize(f.key_size);
    key.push_back(char(l));
    if (IsLeaf(child)) {
      Status s = check_leaf(child, key);
      if (!s.ok()) return s;
      continue;
    }
    if (stack.size() > used / kNodeBytes[0]) return Status::Corruption("the trie has a cycle");
    stack.push_back(Frame{child, n->end_depth + 1, key.size(), -1});
  }
  counted.versions = versions;
  if (entries != nullptr) *entries = versions;
  if (census != nullptr) *census = counted;
  return Status::OK();
}

}  // namespace memrep::trie
