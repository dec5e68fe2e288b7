// The trie's writes: an insert's descent and the changes it makes (a split,
// a new leaf, a child appended or a node grown, a version linked in), and
// the count of entries (trie.h; docs/trie.md, Insert and Concurrency).
#include <algorithm>
#include <cstring>

#include "trie/trie.h"
#include "util/assert.h"

namespace memrep::trie {

using concurrency::SharedWrite;

// An insert on its way down: the key, and what it brings (a row's cell, or
// a view's version and, once one is needed, its leaf).
struct Trie::Pending {
  std::string_view key;
  uint64_t sequence = 0;
  Ref version = 0;  // rows: the cell; views: the version
  Ref leaf = 0;     // views: a leaf made on an earlier attempt
  uint32_t leaf_from = 0;
};

void Trie::CountEntry() {
  MEMREP_COUNT_SHARED_WRITE(SharedWrite::kEntryCount);
  entries_.Mine().fetch_add(1, std::memory_order_relaxed);
}

uint64_t Trie::NumEntries() const {
  uint64_t n = 0;
  entries_.ForEach(
      [&n](const std::atomic<uint64_t>& c) { n += c.load(std::memory_order_relaxed); });
  return n;
}

Status Trie::AllocateCell(size_t row_len, Ref* cell, char** row) {
  if (mode_ != Mode::kRows) return Status::NotSupported("a trie of views holds no rows");
  if (row_len > kMaxRegionBytes) return Status::Full("a row larger than the trie's region");
  // The nodes' reserve is for the inserts that hold a cell already.
  if (exhausted_.load(std::memory_order_relaxed)) {
    return Status::Full("the trie's region is full: switch to a new memtable");
  }
  memory::RowRef ref = 0;
  Status s = cells_->Allocate(row_len, &ref);
  if (!s.ok()) return s;
  *cell = ref;
  *row = cells_->At(ref) + kRowCellHeader;
  return Status::OK();
}

Status Trie::InsertCell(Ref cell) {
  uint64_t tag;
  Pending e;
  e.key = format::RowUserKey(Row(cell), &tag);
  e.sequence = TagSequence(tag);
  e.version = cell;
  return Insert(&e);
}

Status Trie::InsertView(const EntryView& entry) {
  if (entry.user_key.size() >= kMaxRegionBytes || entry.value.size() >= kMaxRegionBytes) {
    return Status::Full("an entry larger than the trie's region");
  }
  Pending e;
  e.key = entry.user_key;
  e.sequence = entry.sequence();
  Status s = Bump(kViewVersionHeader + entry.value.size(), false, &e.version);
  if (!s.ok()) return s;
  auto* v = reinterpret_cast<ViewVersion*>(At(e.version));
  v->value_len = static_cast<uint32_t>(entry.value.size());
  v->tag_lo = static_cast<uint32_t>(entry.tag);
  v->tag_hi = static_cast<uint32_t>(entry.tag >> 32);
  if (!entry.value.empty()) {
    std::memcpy(At(e.version) + kViewVersionHeader, entry.value.data(), entry.value.size());
  }
  return Insert(&e);
}

Status Trie::MakeLeaf(Pending* e, uint32_t from, Ref* leaf) {
  if (mode_ == Mode::kRows) {
    // The cell is the key's first version, and the slot that names it the
    // head of its versions.
    NextLink(e->version).store(0, std::memory_order_relaxed);
    *leaf = e->version | kLeafBit;
    return Status::OK();
  }
  NextLink(e->version).store(0, std::memory_order_relaxed);
  if (e->leaf == 0 || e->leaf_from > from) {
    const uint32_t size = static_cast<uint32_t>(e->key.size());
    Ref r;
    Status s = Bump(kViewLeafHeader + (size - from), false, &r);
    if (!s.ok()) return s;
    auto* l = reinterpret_cast<ViewLeaf*>(At(r));
    l->from = from;
    l->key_len = size;
    if (size > from) std::memcpy(At(r) + kViewLeafHeader, e->key.data() + from, size - from);
    e->leaf = r;
    e->leaf_from = from;
  }
  HeadLink(e->leaf).store(e->version, std::memory_order_relaxed);
  *leaf = e->leaf | kLeafBit;
  return Status::OK();
}

Status Trie::Insert(Pending* e) {
  MEMREP_ASSERT(!frozen());
  Protocol::WriteGuard guard(protocol_);
  Status s;
  while (TryInsert(e, &s) == Outcome::kRestart) {
  }
  if (s.ok()) CountEntry();
  return s;
}

Trie::Outcome Trie::TryInsert(Pending* e, Status* s) {
  const std::string_view key = e->key;
  Ref parent = 0;
  uint8_t parent_label = 0;
  Ref node = root_;
  uint32_t depth = 0;
  for (;;) {
    const NodeHeader* n = NodeAt(node);
    const uint32_t end = n->end_depth;
    if (end > depth) {
      const uint32_t at = MatchPrefix(n, key, depth);
      if (at < end) return SplitNode(parent, parent_label, node, depth, at, e, s);
    }
    if (key.size() == end) return AddValue(node, e, s);
    const uint8_t label = static_cast<uint8_t>(key[end]);
    const Ref child = FindChild(n, label);
    if (child == 0) return AddChild(parent, parent_label, node, label, e, s);
    if (IsLeaf(child)) return AtLeaf(node, label, child, end + 1, e, s);
    parent = node;
    parent_label = label;
    node = child;
    depth = end + 1;
    PrefetchSlot(child, key, depth);
  }
}

// The key leaves the node's prefix at depth `at` (depth <= at < end): a new
// node above it takes the common part [depth, at) and two entries, the old
// node and the new leaf. Only the parent's slot changes.
Trie::Outcome Trie::SplitNode(Ref parent, uint8_t parent_label, Ref node, uint32_t depth,
                              uint32_t at, Pending* e, Status* s) {
  MEMREP_ASSERT(parent != 0);  // the root has no prefix
  NodeHeader* p = NodeAt(parent);
  MEMREP_TRIE_RACE_POINT(kBeforeLock);
  if (!Lock(p)) return Outcome::kRestart;
  if (FindChild(p, parent_label) != node) {
    Unlock(p);
    return Outcome::kRestart;
  }
  const NodeHeader* n = NodeAt(node);
  Ref leaf = 0, m = 0;
  const bool key_ends = e->key.size() == at;
  *s = MakeLeaf(e, key_ends ? at : at + 1, &leaf);
  if (s->ok()) *s = AllocNode(Kind::kK2, &m);
  if (!s->ok()) {
    Unlock(p);
    return Outcome::kDone;
  }
  NodeHeader* mh = NodeAt(m);
  mh->end_depth = at;
  if (at - depth <= 4) {
    uint32_t bytes = 0;
    for (uint32_t i = depth; i < at; ++i) bytes |= uint32_t{PrefixByte(n, i)} << (8 * (i - depth));
    mh->inline_len = static_cast<uint8_t>(at - depth);
    mh->prefix = bytes;
  } else {
    mh->inline_len = kLeafPrefix;
    mh->prefix = n->prefix;  // a leaf below n holds n's path, so [depth, at) too
  }
  AppendChild(mh, PrefixByte(n, at), node);
  if (key_ends) {
    mh->value.store(leaf, std::memory_order_relaxed);
  } else {
    AppendChild(mh, static_cast<uint8_t>(e->key[at]), leaf);
  }
  SetChild(p, parent_label, m);  // release: m and the leaf are complete
  Unlock(p);
  return Outcome::kDone;
}

// The slot of `label` in `node` holds a leaf; the key reached it at depth
// `depth`. Same key: a new version. Else a new node takes both leaves.
Trie::Outcome Trie::AtLeaf(Ref node, uint8_t label, Ref leaf, uint32_t depth, Pending* e,
                           Status* s) {
  const LeafKey lk = KeyBytes(leaf);
  const std::string_view key = e->key;
  const uint32_t common = std::min<uint64_t>(lk.size, key.size());
  uint32_t at = depth;
  while (at < common && lk.at(at) == static_cast<uint8_t>(key[at])) ++at;
  if (at == lk.size && at == key.size()) return AddVersion(node, label, leaf, e, s);
  NodeHeader* x = NodeAt(node);
  MEMREP_TRIE_RACE_POINT(kBeforeLock);
  if (!Lock(x)) return Outcome::kRestart;
  if (FindChild(x, label) != leaf) {
    Unlock(x);
    return Outcome::kRestart;
  }
  Ref mine = 0, m = 0;
  const bool key_ends = key.size() == at;
  *s = MakeLeaf(e, key_ends ? at : at + 1, &mine);
  if (s->ok()) *s = AllocNode(Kind::kK2, &m);
  if (!s->ok()) {
    Unlock(x);
    return Outcome::kDone;
  }
  NodeHeader* mh = NodeAt(m);
  mh->end_depth = at;
  if (at - depth <= 4) {
    uint32_t bytes = 0;
    for (uint32_t i = depth; i < at; ++i) bytes |= uint32_t{lk.at(i)} << (8 * (i - depth));
    mh->inline_len = static_cast<uint8_t>(at - depth);
    mh->prefix = bytes;
  } else {
    mh->inline_len = kLeafPrefix;
    mh->prefix = leaf;
  }
  if (lk.size == at) {
    mh->value.store(leaf, std::memory_order_relaxed);
  } else {
    AppendChild(mh, lk.at(at), leaf);
  }
  if (key_ends) {
    mh->value.store(mine, std::memory_order_relaxed);
  } else {
    AppendChild(mh, static_cast<uint8_t>(key[at]), mine);
  }
  SetChild(x, label, m);
  Unlock(x);
  return Outcome::kDone;
}

// No child at `label`: append one, or, if the node is full, replace it by a
// bigger copy with the new child (under the parent's lock and its own).
Trie::Outcome Trie::AddChild(Ref parent, uint8_t parent_label, Ref node, uint8_t label, Pending* e,
                             Status* s) {
  NodeHeader* x = NodeAt(node);
  MEMREP_TRIE_RACE_POINT(kBeforeLock);
  if (!Lock(x)) return Outcome::kRestart;
  if (FindChild(x, label) != 0) {
    Unlock(x);
    return Outcome::kRestart;
  }
  if (!Full(x)) {
    Ref leaf = 0;
    *s = MakeLeaf(e, x->end_depth + 1, &leaf);
    if (s->ok()) {
      // A small kind writes the label, the child and the count; a K48 the
      // child, the count and the index; a K256 the slot.
      MEMREP_COUNT_SHARED_WRITE(SharedWrite::kNodeWrite, x->kind == Kind::kK256 ? 1 : 3);
      AppendChild(x, label, leaf);
    }
    Unlock(x);
    return Outcome::kDone;
  }
  Unlock(x);
  MEMREP_ASSERT(parent != 0);  // the root never fills
  NodeHeader* p = NodeAt(parent);
  MEMREP_TRIE_RACE_POINT(kBeforeLock);
  if (!Lock(p)) return Outcome::kRestart;
  if (FindChild(p, parent_label) != node || !Lock(x)) {
    Unlock(p);
    return Outcome::kRestart;
  }
  if (FindChild(x, label) != 0 || !Full(x)) {
    Unlock(x);
    Unlock(p);
    return Outcome::kRestart;
  }
  const Kind kind = static_cast<Kind>(static_cast<int>(x->kind) + 1);
  Ref leaf = 0, bigger = 0;
  *s = MakeLeaf(e, x->end_depth + 1, &leaf);
  if (s->ok()) *s = AllocNode(kind, &bigger);
  if (!s->ok()) {
    Unlock(x);
    Unlock(p);
    return Outcome::kDone;
  }
  NodeHeader* b = NodeAt(bigger);
  b->end_depth = x->end_depth;
  b->inline_len = x->inline_len;
  b->prefix = x->prefix;
  b->value.store(x->value.load(std::memory_order_relaxed), std::memory_order_relaxed);
  Ref child = 0;
  for (int l = FirstChild(x, 0, &child); l >= 0; l = FirstChild(x, l + 1, &child)) {
    AppendChild(b, static_cast<uint8_t>(l), child);
  }
  AppendChild(b, label, leaf);
  SetChild(p, parent_label, bigger);  // release: the copy is complete
  const Kind old_kind = x->kind;
  Protocol::Replace(x);
  Unlock(p);
  MEMREP_TRIE_RACE_POINT(kBeforeRetire);
  protocol_.Retire(node, old_kind);
  return Outcome::kDone;
}

Trie::Outcome Trie::AddValue(Ref node, Pending* e, Status* s) {
  NodeHeader* x = NodeAt(node);
  Ref v = x->value.load(std::memory_order_acquire);
  if (v != 0) return AddVersion(node, -1, v, e, s);
  if (!Lock(x)) return Outcome::kRestart;
  v = x->value.load(std::memory_order_relaxed);
  if (v != 0) {
    Unlock(x);
    return AddVersion(node, -1, v, e, s);
  }
  Ref leaf = 0;
  *s = MakeLeaf(e, static_cast<uint32_t>(e->key.size()), &leaf);
  if (s->ok()) {
    MEMREP_COUNT_SHARED_WRITE(SharedWrite::kNodeWrite);
    x->value.store(leaf, std::memory_order_release);
  }
  Unlock(x);
  return Outcome::kDone;
}

// The versions of a key, sequence descending: the new one goes in front of
// the first with a smaller sequence, by a CAS on the link that points to it.
// In rows mode the head link is the slot of `label` in `node` (-1: its
// value), which names the newest version's cell: a new newest version is set
// there under the node's lock (slots change only under their node's lock, so
// a node being copied cannot lose it).
Trie::Outcome Trie::AddVersion(Ref node, int label, Ref leaf, Pending* e, Status* s) {
  std::atomic<Ref>* link;
  Ref cur;
  if (mode_ == Mode::kRows) {
    const Ref head = leaf & ~kLeafBit;
    const uint64_t head_seq = Sequence(head);
    if (head_seq == e->sequence) {
      *s = Status::AlreadyExists("an entry with this user key and sequence is stored");
      return Outcome::kDone;
    }
    if (head_seq < e->sequence) {
      NodeHeader* x = NodeAt(node);
      if (!Lock(x)) return Outcome::kRestart;
      std::atomic<Ref>* slot = Slot(x, label);
      if (slot == nullptr || slot->load(std::memory_order_relaxed) != leaf) {
        Unlock(x);
        return Outcome::kRestart;
      }
      NextLink(e->version).store(head, std::memory_order_relaxed);
      MEMREP_COUNT_SHARED_WRITE(SharedWrite::kNodeWrite);
      slot->store(e->version | kLeafBit, std::memory_order_release);
      Unlock(x);
      *s = Status::OK();
      return Outcome::kDone;
    }
    link = &NextLink(head);
  } else {
    link = &HeadLink(leaf);
  }
  cur = link->load(std::memory_order_acquire);
  for (;;) {
    while (cur != 0 && Sequence(cur) > e->sequence) {
      link = &NextLink(cur);
      cur = link->load(std::memory_order_acquire);
    }
    if (cur != 0 && Sequence(cur) == e->sequence) {
      *s = Status::AlreadyExists("an entry with this user key and sequence is stored");
      return Outcome::kDone;
    }
    NextLink(e->version).store(cur, std::memory_order_relaxed);
    MEMREP_COUNT_SHARED_WRITE(SharedWrite::kVersionLink);
    if (link->compare_exchange_weak(cur, e->version, std::memory_order_release,
                                    std::memory_order_acquire)) {
      *s = Status::OK();
      return Outcome::kDone;
    }
  }
}

}  // namespace memrep::trie
