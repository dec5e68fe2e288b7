// The trie's region: laying out an empty trie or attaching to an image
// (the Meta), and reading what its objects hold: a leaf's key bytes, a
// node's prefix, a version's tag and value (trie.h, node.h).
#include "trie/trie.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

namespace memrep::trie {

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
      root_(root),
      protocol_(reinterpret_cast<const NodeHeader*>(region->base() + OffsetOf(root))) {}

Status Trie::Create(memory::VmRegion* region, Mode mode, bool reverse, uint64_t reserve,
                    uint64_t chunk_bytes, std::unique_ptr<Trie>* out, Allocator* row_allocator,
                    uint64_t row_bytes) {
  if (region->used() != 0 || region->read_only()) {
    return Status::InvalidArgument("a trie is created in an empty, writable region");
  }
  if (region->capacity() > kMaxRegionBytes) {
    return Status::InvalidArgument("a trie's region holds at most 8 GiB (4-byte references)");
  }
  if (mode == Mode::kRows && row_allocator == nullptr) {
    return Status::InvalidArgument("a trie of rows needs an allocator for its cells");
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
  std::unique_ptr<Trie> t(new (std::nothrow)
                              Trie(region, mode, reverse, reserve, root, chunk_bytes));
  if (t == nullptr) return Status::OutOfMemory("the trie's header could not be allocated");
  if (mode == Mode::kRows) {
    // Cells in 4-byte units below 2^31 (kLeafBit stays free), in chunks that
    // start at 1 KiB and grow with the rows held, as the other reps' rows.
    t->cells_.emplace(row_allocator, std::bit_floor(std::max<uint64_t>(chunk_bytes, 4096)),
                      kRowCellHeader, std::min(row_bytes, kMaxRegionBytes), kUnit);
    t->cells_->GrowChunks();
    s = t->cells_->Init();
    if (!s.ok()) return s;
  }
  *out = std::move(t);
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
  if (meta->mode == static_cast<uint32_t>(Mode::kRows)) {
    return Status::NotSupported(
        "the region holds a trie of the RocksDB face (rows), whose rows were kept in RocksDB's "
        "memtable arena, not in the region; only a trie of the standalone face (memrep::MemTable) "
        "is read from its region");
  }
  out->reset(new (std::nothrow) Trie(region, static_cast<Mode>(meta->mode), meta->comparator == 1,
                                     0, meta->root, 1024));
  if (*out == nullptr) return Status::OutOfMemory("the trie's header could not be allocated");
  (*out)->Freeze();
  return Status::OK();
}

Trie::LeafKey Trie::KeyBytes(Ref leaf) const {
  if (mode_ == Mode::kRows) {
    uint64_t tag;
    std::string_view key = format::RowUserKey(Row(leaf & ~kLeafBit), &tag);
    return LeafKey{reinterpret_cast<const uint8_t*>(key.data()), 0,
                   static_cast<uint32_t>(key.size())};
  }
  const char* p = At(leaf);
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

}  // namespace memrep::trie
