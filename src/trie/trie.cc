#include "trie/trie.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "util/assert.h"

namespace memrep::trie {

// An insert on its way down: the key, and what it brings (a row's cell, or
// a view's version and, once one is needed, its leaf).
struct Trie::Pending {
  std::string_view key;
  uint64_t sequence = 0;
  Ref version = 0;  // rows: the cell; views: the version
  Ref leaf = 0;     // views: a leaf made on an earlier attempt
  uint32_t leaf_from = 0;
};

namespace {

constexpr uint32_t kFormatVersion = 1;

}  // namespace

Trie::Trie(memory::VmRegion* region, Mode mode, bool reverse, uint64_t reserve, Ref root,
           uint64_t chunk_bytes)
    : region_(region),
      chunk_bytes_(chunk_bytes),
      mode_(mode),
      reverse_(reverse),
      limit_(region->capacity() > reserve ? region->capacity() - reserve : 0),
      root_(root) {}

Status Trie::Create(memory::VmRegion* region, Mode mode, bool reverse, uint64_t reserve,
                    uint64_t chunk_bytes, std::unique_ptr<Trie>* out) {
  if (region->used() != 0 || region->read_only()) {
    return Status::InvalidArgument("a trie is created in an empty, writable region");
  }
  if (region->capacity() > kMaxRegionBytes) {
    return Status::InvalidArgument("a trie's region holds at most 8 GiB (4-byte references)");
  }
  uint64_t meta_at = 0, root_at = 0;
  Status s = region->Bump(sizeof(Meta), &meta_at);
  if (s.ok()) s = region->Bump(kNodeBytes[static_cast<int>(Kind::kK256)], &root_at);
  if (!s.ok()) return Status::Full("the trie's region cannot hold an empty trie: " + s.ToString());
  const Ref root = static_cast<Ref>(root_at / kUnit);
  auto* n = reinterpret_cast<NodeHeader*>(region->base() + root_at);
  n->kind = Kind::kK256;  // the rest of fresh region memory reads as zero
  Meta* meta = reinterpret_cast<Meta*>(region->base() + meta_at);
  meta->format_version = kFormatVersion;
  meta->mode = static_cast<uint32_t>(mode);
  meta->root = root;
  meta->comparator = reverse ? 1 : 0;
  std::atomic_thread_fence(std::memory_order_release);
  meta->magic = Meta::kMagic;  // last: an image with the magic has the rest
  chunk_bytes = std::clamp<uint64_t>(RoundUp4(chunk_bytes), 1024, uint64_t{1} << 20);
  out->reset(new (std::nothrow) Trie(region, mode, reverse, reserve, root, chunk_bytes));
  if (*out == nullptr) return Status::OutOfMemory("the trie's header could not be allocated");
  return Status::OK();
}

Status Trie::Attach(memory::VmRegion* region, std::unique_ptr<Trie>* out) {
  if (region->used() < sizeof(Meta) + kNodeBytes[static_cast<int>(Kind::kK256)]) {
    return Status::Corruption("the region is too small to hold a trie");
  }
  const Meta* meta = reinterpret_cast<const Meta*>(region->base());
  if (meta->magic != Meta::kMagic || meta->format_version != kFormatVersion || meta->mode > 1 ||
      meta->comparator > 1 || meta->root == 0 ||
      OffsetOf(meta->root) + kNodeBytes[static_cast<int>(Kind::kK256)] > region->used()) {
    return Status::Corruption("the region does not hold a memrep trie of format version " +
                              std::to_string(kFormatVersion));
  }
  out->reset(new (std::nothrow) Trie(region, static_cast<Mode>(meta->mode), meta->comparator == 1,
                                     0, meta->root, 1024));
  if (*out == nullptr) return Status::OutOfMemory("the trie's header could not be allocated");
  (*out)->Freeze();
  return Status::OK();
}

// ---------------------------------------------------------------- memory

Status Trie::Bump(uint64_t bytes, bool from_reserve, Ref* ref) {
  bytes = RoundUp4(bytes);
  if (from_reserve || bytes > chunk_bytes_ / 4) {
    uint64_t offset = 0;
    Status s = region_->Bump(bytes, from_reserve ? region_->capacity() : limit_, &offset);
    if (!s.ok()) return s;
    *ref = static_cast<Ref>(offset / kUnit);
    return Status::OK();
  }
  // Rows, leaves and versions: from the chunk of the writer's shard, so
  // writers share no cache line, and chunks may be blocks of replaced nodes.
  //   span = end << 32 | cursor, in units; cursor <= end.
  // A CAS moves the cursor; a refill (under the shard's lock, so one thread
  // refills and the others see its chunk) installs a new span.
  // Once the region has refused a chunk, every writer stops taking rows,
  // also from the chunks it holds: only the inserts whose rows are already
  // allocated (one per writer thread) draw on the reserve for their nodes.
  if (exhausted_.load(std::memory_order_relaxed)) {
    return Status::Full("the trie's region is full: switch to a new memtable");
  }
  const uint64_t units = bytes / kUnit;
  CellShard& shard = shards_[concurrency::ThreadSlot() % kShards];
  uint64_t span = shard.span.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t cursor = span & 0xffffffffu, end = span >> 32;
    if (cursor + units <= end) {
      if (shard.span.compare_exchange_weak(span, span + units, std::memory_order_relaxed)) {
        *ref = static_cast<Ref>(cursor);
        return Status::OK();
      }
      continue;
    }
    concurrency::MutexLock lock(&shard.refill);
    if (shard.span.load(std::memory_order_relaxed) != span) {
      span = shard.span.load(std::memory_order_relaxed);
      continue;
    }
    uint64_t start = 0, chunk_units = 0;
    if (!TakeFreeBlock(units, &start, &chunk_units)) {
      uint64_t offset = 0;
      Status s = region_->Bump(chunk_bytes_, limit_, &offset);
      if (!s.ok()) {
        if (s.IsFull()) exhausted_.store(true, std::memory_order_relaxed);
        return s;
      }
      start = offset / kUnit;
      chunk_units = chunk_bytes_ / kUnit;
    }
    *ref = static_cast<Ref>(start);
    shard.span.store((start + chunk_units) << 32 | (start + units), std::memory_order_relaxed);
    return Status::OK();
  }
}

// A block of a replaced K48 or K256 that holds `units`, as a chunk for rows
// and leaves (nodes take the smaller kinds; see AllocNode).
bool Trie::TakeFreeBlock(uint64_t units, uint64_t* start, uint64_t* chunk_units) {
  if (free_blocks_.load(std::memory_order_relaxed) == 0) return false;
  concurrency::MutexLock lock(&free_mu_);
  for (int k = static_cast<int>(Kind::kK48); k < kKinds; ++k) {
    if (free_[k].empty() || kNodeBytes[k] / kUnit < units) continue;
    *start = free_[k].back();
    free_[k].pop_back();
    free_blocks_.fetch_sub(1, std::memory_order_relaxed);
    *chunk_units = kNodeBytes[k] / kUnit;
    // Unreachable and unread (EpochDomain); what a cell does not write must
    // read as zero, as fresh region memory does.
    std::memset(At(static_cast<Ref>(*start)), 0, kNodeBytes[k]);
    return true;
  }
  return false;
}

// A node comes from the free lists when they hold anything: one of its own
// kind, else the front of a bigger block, whose rest is cut into blocks of
// the biggest kinds that fit (so the K16s and K48s that nodes outgrew become
// the K2s and K4s that new splits need). Else from the region.
Status Trie::AllocNode(Kind kind, Ref* ref) {
  const int k = static_cast<int>(kind);
  if (free_blocks_.load(std::memory_order_relaxed) != 0) {
    concurrency::MutexLock lock(&free_mu_);
    for (int j = k; j < kKinds; ++j) {
      if (free_[j].empty()) continue;
      *ref = free_[j].back();
      free_[j].pop_back();
      uint32_t rest = kNodeBytes[j] - kNodeBytes[k];
      Ref at = *ref + kNodeBytes[k] / kUnit;
      for (int c = j - 1; c >= 0 && rest >= kNodeBytes[0]; --c) {
        while (rest >= kNodeBytes[c]) {
          free_[c].push_back(at);
          at += kNodeBytes[c] / kUnit;
          rest -= kNodeBytes[c];
          free_blocks_.fetch_add(1, std::memory_order_relaxed);
        }
      }
      free_blocks_.fetch_sub(1, std::memory_order_relaxed);
      // No reader holds it (EpochDomain), and it is unreachable: reset it.
      std::memset(At(*ref), 0, kNodeBytes[k]);
      NodeAt(*ref)->kind = kind;
      return Status::OK();
    }
  }
  Status s = Bump(kNodeBytes[k], /*from_reserve=*/true, ref);
  if (s.ok()) NodeAt(*ref)->kind = kind;
  return s;
}

void Trie::Retire(Ref node, Kind kind) {
  replacements_.fetch_add(1, std::memory_order_seq_cst);
  const uint64_t stamp = epochs_.Advance();
  concurrency::MutexLock lock(&free_mu_);
  limbo_.push_back(Retired{node, kind, stamp});
  if (limbo_.size() < 32) return;
  const uint64_t oldest = epochs_.OldestAnnounced();
  size_t kept = 0;
  for (const Retired& r : limbo_) {
    if (r.stamp < oldest) {
      free_[static_cast<int>(r.kind)].push_back(r.node);
      free_blocks_.fetch_add(1, std::memory_order_relaxed);
    } else {
      limbo_[kept++] = r;
    }
  }
  limbo_.resize(kept);
}

void Trie::CountEntry() {
  entries_[concurrency::ThreadSlot() % kCounterShards].n.fetch_add(1, std::memory_order_relaxed);
}

uint64_t Trie::NumEntries() const {
  uint64_t n = 0;
  for (const Counter& c : entries_) n += c.n.load(std::memory_order_relaxed);
  return n;
}

// ---------------------------------------------------------------- keys

Trie::LeafKey Trie::KeyBytes(Ref leaf) const {
  const char* p = At(leaf);
  if (mode_ == Mode::kRows) {
    uint64_t tag;
    std::string_view key = format::RowUserKey(p + kRowCellHeader, &tag);
    return LeafKey{reinterpret_cast<const uint8_t*>(key.data()), 0,
                   static_cast<uint32_t>(key.size())};
  }
  const ViewLeaf* l = reinterpret_cast<const ViewLeaf*>(p);
  return LeafKey{reinterpret_cast<const uint8_t*>(p + kViewLeafHeader), l->from, l->key_len};
}

uint64_t Trie::Tag(Ref version) const {
  if (mode_ == Mode::kRows) {
    uint64_t tag;
    format::RowUserKey(Row(version), &tag);
    return tag;
  }
  return reinterpret_cast<const ViewVersion*>(At(version))->tag();
}

std::string_view Trie::Value(Ref version) const {
  const char* p = At(version);
  return std::string_view(p + kViewVersionHeader,
                          reinterpret_cast<const ViewVersion*>(p)->value_len);
}

uint8_t Trie::PrefixByte(const NodeHeader* n, uint32_t i) const {
  if (n->inline_len != kLeafPrefix) {
    const uint32_t start = n->end_depth - n->inline_len;
    return static_cast<uint8_t>(n->prefix >> (8 * (i - start)));
  }
  return KeyBytes(n->prefix).at(i);
}

uint32_t Trie::MatchPrefix(const NodeHeader* n, std::string_view key, uint32_t from) const {
  const uint32_t end = std::min<uint64_t>(n->end_depth, key.size());
  const auto* k = reinterpret_cast<const uint8_t*>(key.data());
  if (n->inline_len != kLeafPrefix) {
    const uint32_t start = n->end_depth - n->inline_len;
    for (uint32_t i = from; i < end; ++i) {
      if (k[i] != static_cast<uint8_t>(n->prefix >> (8 * (i - start)))) return i;
    }
    return end;
  }
  const LeafKey src = KeyBytes(n->prefix);
  for (uint32_t i = from; i < end; ++i) {
    if (k[i] != src.at(i)) return i;
  }
  return end;
}

int Trie::CompareLeaf(Ref leaf, std::string_view key, uint32_t from) const {
  const LeafKey lk = KeyBytes(leaf);
  const size_t a = lk.size > from ? lk.size - from : 0;
  const size_t b = key.size() > from ? key.size() - from : 0;
  const size_t n = std::min(a, b);
  int r = n == 0 ? 0 : std::memcmp(lk.bytes + (from - lk.from), key.data() + from, n);
  if (r == 0) r = a < b ? -1 : (a > b ? 1 : 0);
  return r;
}

std::string_view Trie::KeyOf(Ref leaf, const Path& path, std::string* buf) const {
  const LeafKey lk = KeyBytes(leaf);
  if (mode_ == Mode::kRows) {
    return std::string_view(reinterpret_cast<const char*>(lk.bytes), lk.size);
  }
  buf->clear();
  for (const Step& step : path) {
    const NodeHeader* n = NodeAt(step.node);
    for (uint32_t i = step.depth; i < n->end_depth; ++i) buf->push_back(char(PrefixByte(n, i)));
    if (step.label >= 0) buf->push_back(char(step.label));
  }
  for (uint32_t i = static_cast<uint32_t>(buf->size()); i < lk.size; ++i) {
    buf->push_back(char(lk.at(i)));
  }
  return *buf;
}
// ---------------------------------------------------------------- writing

Status Trie::AllocateCell(size_t row_len, Ref* cell, char** row) {
  if (row_len > kMaxRegionBytes) return Status::Full("a row larger than the trie's region");
  Status s = Bump(kRowCellHeader + row_len, /*from_reserve=*/false, cell);
  if (!s.ok()) return s;
  *row = At(*cell) + kRowCellHeader;
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
  concurrency::EpochDomain::Guard guard(epochs_);
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
  if (!Lock(x)) return Outcome::kRestart;
  if (FindChild(x, label) != 0) {
    Unlock(x);
    return Outcome::kRestart;
  }
  if (!Full(x)) {
    Ref leaf = 0;
    *s = MakeLeaf(e, x->end_depth + 1, &leaf);
    if (s->ok()) AppendChild(x, label, leaf);
    Unlock(x);
    return Outcome::kDone;
  }
  Unlock(x);
  MEMREP_ASSERT(parent != 0);  // the root never fills
  NodeHeader* p = NodeAt(parent);
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
  x->lock.store(kObsolete | kLocked, std::memory_order_release);
  Unlock(x);
  Unlock(p);
  Retire(node, x->kind);
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
  if (s->ok()) x->value.store(leaf, std::memory_order_release);
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
    if (link->compare_exchange_weak(cur, e->version, std::memory_order_release,
                                    std::memory_order_acquire)) {
      *s = Status::OK();
      return Outcome::kDone;
    }
  }
}

}  // namespace memrep::trie
