// The trie's reads: finding a key's leaf, and the ordered descents
// iterators use (trie.h).
#include "trie/trie.h"

namespace memrep::trie {

bool Trie::DescendStep(std::string_view key, Ref* node, uint32_t* depth, Ref* found) const {
  if (IsLeaf(*node)) {
    *found = CompareLeaf(*node, key, *depth) == 0 ? *node : 0;
    return true;
  }
  const NodeHeader* n = NodeAt(*node);
  const uint32_t end = n->end_depth;
  *found = 0;
  if (end > *depth && (key.size() < end || MatchPrefix(n, key, *depth) < end)) return true;
  if (key.size() == end) {
    *found = n->value.load(std::memory_order_acquire);
    return true;
  }
  const Ref child = FindChild(n, static_cast<uint8_t>(key[end]));
  if (child == 0) return true;
  MEMREP_TRIE_RACE_POINT(kReaderStep);
  *node = child;
  *depth = end + 1;
  if (IsLeaf(child)) {
    __builtin_prefetch(CellAt(child));
  } else {
    PrefetchSlot(child, key, end + 1);
  }
  return false;
}

Ref Trie::FindLeaf(std::string_view key) const {
  Ref node = root_;
  uint32_t depth = 0;
  Ref found = 0;
  while (!DescendStep(key, &node, &depth, &found)) {
  }
  return found;
}

void Trie::FindLeaves(std::span<const std::string_view> keys, Ref* out) const {
  struct Descent {
    size_t index;
    Ref node;
    uint32_t depth;
  };
  Descent descents[kDescents];
  size_t active = 0;
  size_t next = 0;
  while (active < kDescents && next < keys.size()) {
    descents[active++] = Descent{next++, root_, 0};
  }
  while (active > 0) {
    for (size_t k = 0; k < active;) {
      Descent& d = descents[k];
      Ref found;
      if (!DescendStep(keys[d.index], &d.node, &d.depth, &found)) {
        ++k;
        continue;
      }
      out[d.index] = found;
      if (next < keys.size()) {
        d = Descent{next++, root_, 0};
        ++k;
      } else {
        d = descents[--active];
      }
    }
  }
}

Ref Trie::Descend(Ref x, uint32_t depth, bool first, Path* path) const {
  for (;;) {
    if (IsLeaf(x)) return x;
    const NodeHeader* n = NodeAt(x);
    const Ref v = n->value.load(std::memory_order_acquire);
    if (first && v != 0) {
      path->push_back(Step{x, depth, -1});
      return v;
    }
    Ref child = 0;
    const int l = first ? FirstChild(n, 0, &child) : LastChild(n, 255, &child);
    if (l < 0) {
      if (v == 0) return 0;  // an empty root
      path->push_back(Step{x, depth, -1});
      return v;
    }
    path->push_back(Step{x, depth, l});
    x = child;
    depth = n->end_depth + 1;
  }
}

Ref Trie::Advance(Path* path) const {
  while (!path->empty()) {
    Step& step = path->back();
    const NodeHeader* n = NodeAt(step.node);
    Ref child = 0;
    const int l = FirstChild(n, step.label + 1, &child);
    if (l < 0) {
      path->pop_back();
      continue;
    }
    step.label = l;
    const Ref r = Descend(child, n->end_depth + 1, true, path);
    if (r != 0) return r;
  }
  return 0;
}

Ref Trie::Retreat(Path* path) const {
  while (!path->empty()) {
    Step& step = path->back();
    if (step.label < 0) {
      path->pop_back();
      continue;
    }
    const NodeHeader* n = NodeAt(step.node);
    Ref child = 0;
    const int l = LastChild(n, step.label - 1, &child);
    if (l >= 0) {
      step.label = l;
      const Ref r = Descend(child, n->end_depth + 1, false, path);
      if (r != 0) return r;
      continue;
    }
    const Ref v = n->value.load(std::memory_order_acquire);
    if (v != 0) {
      step.label = -1;
      return v;
    }
    path->pop_back();
  }
  return 0;
}

void Trie::PrefetchNeighbour(const Path& path, bool forward) const {
  if (path.empty() || path.back().label < 0) return;
  const Step& step = path.back();
  const NodeHeader* n = NodeAt(step.node);
  Ref child = 0;
  const int l = forward ? (step.label < 255 ? FirstChild(n, step.label + 1, &child) : -1)
                        : LastChild(n, step.label - 1, &child);
  if (l >= 0 && IsLeaf(child)) __builtin_prefetch(CellAt(child));
}

Ref Trie::First(Path* path) const {
  path->clear();
  return Descend(root_, 0, true, path);
}

Ref Trie::Last(Path* path) const {
  path->clear();
  return Descend(root_, 0, false, path);
}

Ref Trie::LowerBound(std::string_view key, bool strict, Path* path) const {
  path->clear();
  const auto* k = reinterpret_cast<const uint8_t*>(key.data());
  Ref node = root_;
  uint32_t depth = 0;
  for (;;) {
    const NodeHeader* n = NodeAt(node);
    const uint32_t end = n->end_depth;
    for (uint32_t i = depth; i < end; ++i) {
      if (i == key.size()) return Descend(node, depth, true, path);  // all here extend key
      const uint8_t b = PrefixByte(n, i);
      if (b > k[i]) return Descend(node, depth, true, path);
      if (b < k[i]) return Advance(path);  // all here are smaller
    }
    if (key.size() == end) {
      const Ref v = n->value.load(std::memory_order_acquire);
      path->push_back(Step{node, depth, -1});
      if (v != 0 && !strict) return v;
      return Advance(path);  // the children, all greater
    }
    const uint8_t label = k[end];
    const Ref child = FindChild(n, label);
    path->push_back(Step{node, depth, label});
    if (child == 0) return Advance(path);
    if (IsLeaf(child)) {
      const int c = CompareLeaf(child, key, end + 1);
      if (c > 0 || (c == 0 && !strict)) return child;
      return Advance(path);
    }
    node = child;
    depth = end + 1;
    PrefetchSlot(child, key, depth);
  }
}

Ref Trie::LastLE(std::string_view key, bool strict, Path* path) const {
  path->clear();
  const auto* k = reinterpret_cast<const uint8_t*>(key.data());
  Ref node = root_;
  uint32_t depth = 0;
  for (;;) {
    const NodeHeader* n = NodeAt(node);
    const uint32_t end = n->end_depth;
    for (uint32_t i = depth; i < end; ++i) {
      if (i == key.size()) return Retreat(path);  // all here extend key: greater
      const uint8_t b = PrefixByte(n, i);
      if (b > k[i]) return Retreat(path);
      if (b < k[i]) return Descend(node, depth, false, path);  // all here are smaller
    }
    if (key.size() == end) {
      const Ref v = n->value.load(std::memory_order_acquire);
      if (v != 0 && !strict) {
        path->push_back(Step{node, depth, -1});
        return v;
      }
      return Retreat(path);  // the value is the key itself; the children are greater
    }
    const uint8_t label = k[end];
    const Ref child = FindChild(n, label);
    path->push_back(Step{node, depth, label});
    if (child == 0) return Retreat(path);
    if (IsLeaf(child)) {
      const int c = CompareLeaf(child, key, end + 1);
      if (c < 0 || (c == 0 && !strict)) return child;
      return Retreat(path);
    }
    node = child;
    depth = end + 1;
    PrefetchSlot(child, key, depth);
  }
}

}  // namespace memrep::trie
