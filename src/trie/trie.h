// Trie: a concurrent Patricia trie in one offset-addressed region, indexing
// user keys bytewise; each key leads to a list of its versions, newest first.
// The trie rep (trie_rep.h) puts a RocksDB face or a standalone face on it;
// the frozen image of a file-backed one is read in place by TrieTable.
//
//   region (views):  [ meta ][ root: K256 ][ nodes, leaves, versions ... ]
//   region (rows):   [ meta ][ root: K256 ][ nodes ... ]
//   cells (rows):    a memory::RowRegion over the caller's Allocator (RocksDB's
//                    memtable arena): chunk table -> chunks of [next | row]
//   descent: root ─label─► node ─prefix bytes, label─► ... ─► leaf ─► versions
//
// A Ref to a node is an offset in the region. A Ref to a leaf or a version
// is an offset in the region (views) or a RowRegion reference (rows: below
// 2^31, so a leaf's kLeafBit stays free); CellAt resolves both.
//
// Concurrency (protocol.h holds the whole protocol; docs/trie.md explains it):
//  - Readers take no lock: every object is fully written before its Ref is
//    published with a release store (a child slot, a node's value, a leaf's
//    head, a version's next), and read through acquire loads.
//  - A writer changes a node only under the node's lock: it appends a child
//    or sets the value in place (children never move within a node), or
//    replaces a full node by a bigger copy, holding the parent's lock too
//    (locks are taken top-down, so writers never deadlock). A replaced node
//    is marked obsolete (a writer that locks it next starts again) and
//    retired; its memory is reused once no reader can hold it
//    (concurrency/epoch.h). A split puts a new node above a child under the
//    parent's lock only: the child itself never changes, because a node's
//    prefix is read from the depth it is reached at (its bytes are kept in a
//    leaf's key, never in the node's own copy).
//  - Versions of one key form a sorted list (sequence descending) that only
//    grows: an insert is a CAS on the link before its place, so two writers
//    of the same key and sequence cannot both succeed (a duplicate is
//    refused).
//  - Leaves and versions are never moved or freed; only nodes are.
//
// Crash consistency (file-backed regions): every change is one release store
// of a Ref to objects written before it, so the bytes in the file after a
// process dies at any instant form a valid trie holding every insert that
// returned (Check() walks and verifies one).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "concurrency/per_thread.h"
#include "concurrency/shared_writes.h"
#include "format/coding.h"
#include "format/key_order.h"
#include "memory/row_region.h"
#include "memory/thread_chunks.h"
#include "memory/vm_region.h"
#include "memrep/entry.h"
#include "memrep/status.h"
#include "trie/node.h"
#include "trie/protocol.h"
#include "trie/race_points.h"

namespace memrep::trie {

// What the region's first bytes say about the trie in it.
struct Meta {
  static constexpr uint64_t kMagic = 0x3165697250524d4dULL;  // "MMRPrie1"
  uint64_t magic;
  uint32_t format_version;
  uint32_t mode;        // Trie::Mode
  uint32_t root;        // Ref of the root node
  uint32_t comparator;  // 0 bytewise, 1 reverse bytewise (the reader's order)
  uint64_t reserved[5];
};
static_assert(sizeof(Meta) == 64);

class Trie {
 public:
  enum class Mode : uint32_t { kRows = 0, kViews = 1 };

  // Lays out an empty trie in an empty, writable region. `reserve`: bytes
  // kept back from leaves and versions (views) or from the nodes of new
  // inserts (rows) for the nodes of inserts in flight (see AllocateCell).
  // chunk_bytes: what a writer thread takes from the region at a time for
  // its nodes, leaves and versions (1 KiB..1 MiB). Rows: the cells come from
  // a RowRegion over `row_allocator` (REQUIRED) of `row_bytes` of address
  // space (at most kMaxRegionBytes; tests set less). InvalidArgument: the
  // region is not empty or too big, or rows have no allocator; Full: the
  // region is too small; OutOfMemory: the row region's table.
  static Status Create(memory::VmRegion* region, Mode mode, bool reverse, uint64_t reserve,
                       uint64_t chunk_bytes, std::unique_ptr<Trie>* out,
                       Allocator* row_allocator = nullptr, uint64_t row_bytes = kMaxRegionBytes);
  // Reads the trie a region already holds (a frozen image). Corruption if
  // its meta is not a trie's; NotSupported for a trie of rows (its cells
  // were never in the region).
  static Status Attach(memory::VmRegion* region, std::unique_ptr<Trie>* out);

  Mode mode() const { return mode_; }
  bool reverse() const { return reverse_; }
  memory::VmRegion* region() const { return region_; }

  // ---- Writing (REQUIRES: not frozen) ----

  // Rows: room for a row of `row_len` bytes in a new cell of the row
  // region. Full when the row region's address space is spent, or when the
  // region, less its reserve, has no room for nodes; OutOfMemory when the
  // allocator has none.
  Status AllocateCell(size_t row_len, Ref* cell, char** row);
  // Indexes the row written into the cell. AlreadyExists: its user key and
  // sequence are stored (the cell stays unused); Full: no room for a node
  // (only if more inserts are in flight than the reserve provides for).
  Status InsertCell(Ref cell);
  // Views: stores the entry. AlreadyExists, Full as above.
  Status InsertView(const EntryView& entry);

  // Ends writing: readers stop announcing epochs (nothing is retired any
  // more). REQUIRES: no insert runs or follows.
  void Freeze() { protocol_.Freeze(); }
  bool frozen() const { return protocol_.frozen(); }

  // ---- Reading (any thread, inside a ReadGuard) ----

  // Held while Refs to nodes are in use. Free once frozen.
  class ReadGuard : public Protocol::ReadGuard {
   public:
    explicit ReadGuard(const Trie& t) : Protocol::ReadGuard(t.protocol_) {}
  };

  // The leaf of this user key, or 0.
  Ref FindLeaf(std::string_view key) const;
  // FindLeaf for each key: out[i] for keys[i]. Up to kDescents descents run
  // interleaved, one level each in turn, each prefetching its next node (or
  // leaf) for its next turn, so that their cache misses overlap.
  static constexpr size_t kDescents = 8;
  void FindLeaves(std::span<const std::string_view> keys, Ref* out) const;

  // Versions: newest first.
  Ref Head(Ref leaf) const {
    return mode_ == Mode::kRows ? leaf & ~kLeafBit : HeadLink(leaf).load(std::memory_order_acquire);
  }
  Ref Next(Ref version) const { return NextLink(version).load(std::memory_order_acquire); }
  uint64_t Tag(Ref version) const;
  // Rows: the row of a version's cell.
  const char* Row(Ref version) const { return cells_->At(version) + kRowCellHeader; }
  // Views: a version's value.
  std::string_view Value(Ref version) const;

  // One step of a path from the root: the node, the depth it was reached at,
  // and the child taken (-1: the node's own value).
  struct Step {
    Ref node;
    uint32_t depth;
    int32_t label;
  };
  using Path = std::vector<Step>;
  // Leaves in bytewise key order. Each fills *path with the steps to the
  // leaf it returns (0: none), which Advance and Retreat continue from.
  Ref LowerBound(std::string_view key, bool strict, Path* path) const;  // first >= (>) key
  Ref LastLE(std::string_view key, bool strict, Path* path) const;      // last <= (<) key
  Ref First(Path* path) const;
  Ref Last(Path* path) const;
  Ref Advance(Path* path) const;  // the leaf after the path's
  Ref Retreat(Path* path) const;  // the leaf before the path's
  // Starts loading the leaf after (before) the path's, if it is the next
  // child of the path's last node, so a scan's next step finds it in cache.
  void PrefetchNeighbour(const Path& path, bool forward) const;
  // A leaf's whole user key: in the row (rows), or assembled from the path
  // that reached it into *buf (views).
  std::string_view KeyOf(Ref leaf, const Path& path, std::string* buf) const;

  // Calls visit(version) on the versions of `user` with a sequence at or
  // below `seq`, newest first, until visit returns false (a Get at a
  // snapshot). Takes its own ReadGuard.
  template <typename Visit>
  void VisitVersions(std::string_view user, SequenceNumber seq, Visit visit) const {
    ReadGuard guard(*this);
    VisitVersionsOf(FindLeaf(user), seq, visit);
  }
  // VisitVersions for many keys: visit(i, version) for users[i] at seqs[i],
  // key after key; their descents interleaved (FindLeaves).
  template <typename Visit>
  void VisitVersionsOfMany(std::span<const std::string_view> users,
                           std::span<const SequenceNumber> seqs, Visit visit) const {
    constexpr size_t kChunk = 64;
    Ref leaves[kChunk];
    ReadGuard guard(*this);
    for (size_t first = 0; first < users.size(); first += kChunk) {
      const size_t count = std::min(kChunk, users.size() - first);
      FindLeaves(users.subspan(first, count), leaves);
      for (size_t j = 0; j < count; ++j) {
        VisitVersionsOf(leaves[j], seqs[first + j], [&](Ref v) { return visit(first + j, v); });
      }
    }
  }

  // An internal key's user key and sequence.
  static std::pair<std::string_view, SequenceNumber> Split(std::string_view internal_key) {
    const std::string_view user = format::UserKey(internal_key);
    return {user, TagSequence(format::DecodeFixed64(internal_key.data() + user.size()))};
  }

  // ---- Statistics ----

  uint64_t NumEntries() const;
  // The region's used bytes: writers' chunks counted whole when taken.
  // One load of a line written once per chunk: RocksDB reads the memory
  // usage after every write, so a sum over per-thread lines (ThreadChunks::
  // CarvedUnits) would cost each write a miss per writer. What it counts
  // beyond what is carved is at most a chunk per writer thread (1/1024 of
  // the memtable each, ChunkBytesFor). Rows: nodes only.
  uint64_t BytesUsed() const { return region_->used(); }
  // Rows: the row region's own memory (its chunk table's touched part; the
  // cells are the allocator's, which counts them); 0 for views.
  uint64_t RowTableBytes() const { return cells_ ? cells_->TableBytes() : 0; }
  // Rows: more than half of the row region's address space is used.
  bool RowsNearlyFull() const { return cells_ && cells_->NearlyFull(); }
  // The locks, guards, replacement stamps and reclamation every reader and
  // writer follows.
  const Protocol& protocol() const { return protocol_; }

  // Walks every node, leaf and version: Corruption naming the first fault
  // found. *entries (if given) gets the versions counted. REQUIRES: no
  // writer runs.
  struct Census {
    uint64_t nodes[kKinds] = {};
    uint64_t node_bytes = 0;
    uint64_t leaves = 0;
    uint64_t versions = 0;
  };
  Status Check(uint64_t* entries = nullptr, Census* census = nullptr) const;

  // A node's bytes (an offset in the region).
  char* At(Ref r) const { return region_->base() + OffsetOf(r); }
  // A leaf's or a version's bytes: in the region (views), or a cell of the
  // row region (rows: one chunk-table lookup).
  char* CellAt(Ref r) const { return mode_ == Mode::kRows ? cells_->At(r & ~kLeafBit) : At(r); }

 private:
  Trie(memory::VmRegion* region, Mode mode, bool reverse, uint64_t reserve, Ref root,
       uint64_t chunk_bytes);

  enum class Outcome { kDone, kRestart };
  struct Pending;  // an insert on its way down

  Status Insert(Pending* e);
  Outcome TryInsert(Pending* e, Status* s);
  Outcome SplitNode(Ref parent, uint8_t parent_label, Ref node, uint32_t depth, uint32_t at,
                    Pending* e, Status* s);
  Outcome AtLeaf(Ref node, uint8_t label, Ref leaf, uint32_t depth, Pending* e, Status* s);
  Outcome AddChild(Ref parent, uint8_t parent_label, Ref node, uint8_t label, Pending* e,
                   Status* s);
  Outcome AddValue(Ref node, Pending* e, Status* s);
  Outcome AddVersion(Ref node, int label, Ref leaf, Pending* e, Status* s);
  static std::atomic<Ref>* Slot(NodeHeader* n, int label);
  // The leaf for the pending key, its key bytes kept from depth `from`.
  Status MakeLeaf(Pending* e, uint32_t from, Ref* leaf);

  // A node's header and the child slot a K256 without a prefix would use
  // next are on different cache lines: start loading both at once (a guess;
  // a prefetch never faults).
  void PrefetchSlot(Ref node, std::string_view key, uint32_t depth) const {
    const char* n = At(node);
    __builtin_prefetch(n);
    if (depth < key.size()) {
      __builtin_prefetch(n + kChildren256At + 4 * static_cast<uint8_t>(key[depth]));
    }
  }
  NodeHeader* NodeAt(Ref r) const { return reinterpret_cast<NodeHeader*>(At(r)); }
  // A views leaf's head; a version's next (either face).
  std::atomic<Ref>& HeadLink(Ref leaf) const {
    return *reinterpret_cast<std::atomic<Ref>*>(At(leaf) + 4);
  }
  std::atomic<Ref>& NextLink(Ref version) const {
    return *reinterpret_cast<std::atomic<Ref>*>(CellAt(version));
  }
  uint64_t Sequence(Ref version) const { return TagSequence(Tag(version)); }

  // A leaf's key: bytes[i - from] is byte i, for i in [from, size).
  struct LeafKey {
    const uint8_t* bytes;
    uint32_t from;
    uint32_t size;
    uint8_t at(uint32_t i) const { return bytes[i - from]; }
  };
  LeafKey KeyBytes(Ref leaf) const;
  uint8_t PrefixByte(const NodeHeader* n, uint32_t i) const;
  // The first depth in [from, min(end, key.size())) where the key and the
  // node's prefix differ, else min(end, key.size()).
  uint32_t MatchPrefix(const NodeHeader* n, std::string_view key, uint32_t from) const;
  // Sign of (leaf's key <=> key), both compared from `from` on.
  int CompareLeaf(Ref leaf, std::string_view key, uint32_t from) const;
  // One step of a descent for `key`: from *node (an inner node reached at
  // *depth, or a leaf whose key is compared from *depth) to the next, which
  // it prefetches. Returns true when the descent is over, with *found the
  // key's leaf or 0.
  bool DescendStep(std::string_view key, Ref* node, uint32_t* depth, Ref* found) const;
  template <typename Visit>
  void VisitVersionsOf(Ref leaf, SequenceNumber seq, Visit visit) const {
    if (leaf == 0) return;
    Ref v = Head(leaf);
    while (v != 0 && TagSequence(Tag(v)) > seq) v = Next(v);
    for (; v != 0 && visit(v); v = Next(v)) {
    }
  }

  static Ref FindChild(const NodeHeader* n, uint8_t label);
  // The child with the smallest label >= from (largest <= to): its label,
  // or -1 if none.
  static int FirstChild(const NodeHeader* n, int from, Ref* child);
  static int LastChild(const NodeHeader* n, int to, Ref* child);
  static bool Full(const NodeHeader* n);
  static void AppendChild(NodeHeader* n, uint8_t label, Ref child);
  static void SetChild(NodeHeader* n, uint8_t label, Ref child);
  Ref Descend(Ref x, uint32_t depth, bool first, Path* path) const;

  bool Lock(NodeHeader* n) const { return protocol_.Lock(n); }  // false: obsolete
  static void Unlock(NodeHeader* n) { Protocol::Unlock(n); }
  Status AllocNode(Kind kind, Ref* ref);
  Status Bump(uint64_t bytes, bool from_reserve, Ref* ref);
  void CountEntry();

  memory::VmRegion* const region_;
  // The size of the next chunk a thread takes, for an allocation of `need` bytes.
  uint64_t NextChunkBytes(uint64_t need) const;
  static constexpr uint64_t kMinChunkBytes = 1024;
  const uint64_t chunk_bytes_;
  // The region refused a chunk at limit_: no new leaf, version or (rows)
  // cell is handed out, so the reserve stays for the inserts in flight.
  std::atomic<bool> exhausted_{false};
  const Mode mode_;
  const bool reverse_;
  const uint64_t limit_;  // the region less the reserve
  const Ref root_;
  // Rows: the cells (leaves are cells). Empty for views.
  std::optional<memory::RowRegion> cells_;
  Protocol protocol_;

  // Writers' allocations: per-thread chunks of the region, of spare rests
  // of chunks or of replaced nodes' blocks (memory/thread_chunks.h); nodes
  // in chunks of their own, so that the nodes a descent reads lie together
  // on fewer lines and pages than if leaves and versions came between them
  // (cell_chunks_: views only).
  memory::ThreadChunks node_chunks_;
  memory::ThreadChunks cell_chunks_;

  static constexpr size_t kCounterShards = 16;
  // Entries inserted, per thread, summed by NumEntries (relaxed: a count
  // that orders nothing).
  concurrency::PerThread<std::atomic<uint64_t>, kCounterShards> entries_;
};

}  // namespace memrep::trie
