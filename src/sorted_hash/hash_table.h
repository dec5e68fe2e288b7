// HashTable: one table of the sorted hash rep's point index (HashIndex, in
// hash_index.h, grows by adding tables): an array of buckets, each the head
// of a lock-free singly linked chain of nodes, and a filter of the user keys
// that chain holds.
//
//   bucket (8 bytes) = [ head: RowRef (4) | filter: 31 bits, split bit (4) ]
//   chain:   head -> [ K3 s9 ] -> [ K1 s7 -> K1 s4 ] -> [ K2 s5 ] -> 0
//            groups: a user key's versions together, newest first; a new
//            key's group goes to the head. Links are RowRefs into the rep's
//            RowRegion.
//   filter:  two of 31 bits per user key linked, chosen by hash bits the
//            bucket's position does not use; bit 31 says that a key of the
//            bucket may have groups in older tables too (HashIndex).
//   older:   in a table that has older ones below it, a 64-bit word per 8
//            buckets, after the buckets: two bits per key of the older
//            tables whose bucket here is among the 8 (set by Cover and
//            MarkSplit; HashIndex rules a key out of every older table by it)
//
// What the layout buys: an insert of a key the filter has never seen links
// at the head with one CAS and reads no node (a fill of new keys costs the
// bucket's cache line alone); a lookup of such a key reads the bucket alone.
// A key that may be present is looked for by walking the chain, comparing
// user keys for equality.
//
// The bucket count is any number (a key's bucket is the low 32 bits of its
// hash times the count, high half). The array is taken from the rep's
// Allocator (RocksDB's memtable arena in the RocksDB face), so that RocksDB's
// memory accounting, and a WriteBufferManager, count it; an array above
// kMaxArenaBytes is mapped instead (see Init).
//
// Thread safety: Link may run from many threads at once; FindGroup, SkipNewer
// and NextVersion run concurrently with them and take no lock.
// Invariants:
//  1. Nodes are never removed, so a node's successor only changes by a new
//     node being linked directly after it.
//  2. Groups: every node of a user key lies in one contiguous run of the
//     chain (its group), in descending sequence order. A new group is only
//     ever linked at the head, by a CAS from the head its writer scanned
//     from; a version only inside its group, between a newer and an older
//     version (or the group's first node and whatever precedes it), checked
//     by the CAS that links it.
//  3. A node's fields are complete before the release CAS that links it;
//     readers follow links with acquire loads, so they see complete nodes.
//  4. Filter bits are only ever set, by a fetch_or that each writer makes
//     before its CAS, after loading the head it scans from. So a writer whose
//     fetch_or finds its key's bits unset knows that no node of the key is
//     reachable from that head (the node's own fetch_or would have come
//     first), and scans nothing there; a node linked meanwhile is at the
//     head, and a failed CAS makes the writer scan the nodes above the head
//     it saw.
//  5. A reader to which an insert happened before (it returned before the
//     read began) sees the insert's bits: a filter that lacks a key's bits
//     proves the key absent, and the reader reads no node.
//  6. The filter's fetch_or and the head's CAS of a new group are seq_cst,
//     and so are FindGroup's loads when a writer asks (HashIndex's ordering
//     of two writers that link the same new key into two tables).
// Cost: an insert of a new key, one cache line (plus a chain walk where the
// filter cannot tell: about 1 in 250 with one other key in the bucket, 1 in
// 30 with three); of a new version, the nodes before its group. A lookup
// walks the groups before its key's (the chain's newer keys); of an absent
// key, one cache line but for the same false positives.
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "format/coding.h"
#include "format/key_order.h"
#include "memrep/entry.h"
#include "memrep/rep.h"
#include "memrep/status.h"
#include "sorted_hash/node.h"
#include "util/assert.h"
#include "util/fast_range.h"
#include "util/hash64.h"

namespace memrep::sorted_hash {

class HashTable {
 public:
  struct Bucket {
    std::atomic<RowRef> head;
    std::atomic<uint32_t> filter;
  };
  static_assert(sizeof(Bucket) == 8, "a bucket is a 4-byte link and a 32-bit filter");

  // with_older: whether the table has older ones below it (and so older
  // words). REQUIRES: 0 < bucket_count <= 2^32; Init() before any other call.
  HashTable(uint64_t bucket_count, const RowRegion* region, bool with_older)
      : count_(bucket_count),
        older_words_(with_older ? (bucket_count + 7) / 8 : 0),
        region_(*region) {
    MEMREP_ASSERT(bucket_count > 0 && bucket_count <= (uint64_t{1} << 32));
  }
  HashTable(const HashTable&) = delete;
  HashTable& operator=(const HashTable&) = delete;

  // Takes the buckets from `allocator` and zeroes them, or, above
  // kMaxArenaBytes, maps them (fresh zero pages, touched as buckets are
  // used: a huge bucket_count costs address space, not memory, until used).
  // OutOfMemory if neither has the memory.
  Status Init(Allocator* allocator) {
    char* p = nullptr;
    if (bytes() <= kMaxArenaBytes) {
      p = allocator->AllocateAligned(bytes());
      // No huge-page advice: where the kernel compacts memory to serve it, a
      // memtable's creation (on RocksDB's write path) stalled for tens of
      // milliseconds; the array of a 256 MiB memtable (4 MiB) is within the
      // TLB's reach of 4 KiB pages anyway.
      if (p != nullptr) std::memset(p, 0, bytes());
    } else {
      void* m =
          ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m != MAP_FAILED) {
        p = static_cast<char*>(m);
        mapped_ = true;
      }
    }
    if (p == nullptr) {
      return Status::OutOfMemory("could not allocate the hash index's " + std::to_string(bytes()) +
                                 " bytes of buckets; use a smaller bucket_count or "
                                 "write_buffer_size");
    }
    buckets_ = reinterpret_cast<Bucket*>(p);  // zero: no chain, no filter bit
    if (older_words_ != 0) older_ = reinterpret_cast<std::atomic<uint64_t>*>(buckets_ + count_);
    return Status::OK();
  }
  ~HashTable() {
    if (mapped_) ::munmap(buckets_, bytes());
  }

  // Bucket arrays up to this size come from the Allocator (so RocksDB's
  // accounting and a WriteBufferManager see them): memtables up to 4 GiB
  // with the automatic count.
  static constexpr size_t kMaxArenaBytes = size_t{64} << 20;
  // The bucket array's bytes when it is mapped rather than the Allocator's
  // (the rep's MemoryUsage charges them), else 0.
  size_t MappedBytes() const { return mapped_ ? bytes() : 0; }
  uint64_t bucket_count() const { return count_; }
  size_t bytes() const { return BytesFor(count_, older_words_ != 0); }
  static size_t BytesFor(uint64_t bucket_count, bool with_older) {
    return bucket_count * sizeof(Bucket) + (with_older ? (bucket_count + 7) / 8 * 8 : 0);
  }

  // The outcome of Link.
  enum class Linked { kNewGroup, kVersion, kDuplicate };

  // Links `node` (whose reference is `ref`, whose row has `user_key` and
  // `tag`, and whose user key hashes to `hash`) into its chain: into its
  // key's group if the chain has one (kVersion, or kDuplicate, linking
  // nothing, if the group has a version of its sequence), else as a new
  // group at the head (kNewGroup).
  Linked Link(const format::KeyOrder& order, Node* node, RowRef ref, std::string_view user_key,
              uint64_t tag, uint64_t hash) {
    Bucket& bucket = BucketOf(hash);
    const uint32_t bits = FilterBits(hash);
    // seq_cst: invariant 6 (on x86 as cheap as the acquire invariant 4 needs).
    RowRef head = bucket.head.load(std::memory_order_seq_cst);
    // Invariant 4: the head first, then the bits. A bucket whose bits are
    // set already (most often by this key's older versions) is not written:
    // the whole chain is scanned, so the plain load needs no ordering.
    // Otherwise the fetch_or (seq_cst: invariants 4 and 6) keeps the head's
    // load before it and the scan and CAS after it, and a writer that finds
    // these bits set happens after this one's fetch_or.
    uint32_t before_bits = bucket.filter.load(std::memory_order_relaxed);
    if ((before_bits & bits) != bits) {
      before_bits = bucket.filter.fetch_or(bits, std::memory_order_seq_cst);
    }
    // The nodes from `head` down to `stop` may hold the key: all of them,
    // unless the bits were unset (then none).
    RowRef stop = (before_bits & bits) == bits ? 0 : head;
    for (;;) {
      Node* prev = nullptr;
      Node* group = FindGroupIn(order, head, stop, user_key, &prev);
      if (group == nullptr) {
        // A new group, at the head.
        // relaxed: node is not yet visible; the CAS below releases it.
        node->bucket_next.store(head, std::memory_order_relaxed);
        // seq_cst (a release at least): publishes the node's entry and
        // bucket_next (invariant 3), and invariant 6.
        RowRef seen = head;
        if (bucket.head.compare_exchange_strong(seen, ref, std::memory_order_seq_cst,
                                                std::memory_order_seq_cst)) {
          return Linked::kNewGroup;
        }
        // Nodes were linked at the head meanwhile: look at them (invariant 4).
        stop = head;
        head = seen;
        continue;
      }
      return LinkVersion(order, bucket, node, ref, user_key, tag, prev) ? Linked::kVersion
                                                                        : Linked::kDuplicate;
    }
  }

  // The first node (the newest version) of user_key's group in this table,
  // or nullptr if the table has none. *filter: the bucket's filter word as
  // loaded (its kSplitBit). `order_loads`: seq_cst for a writer that must be
  // ordered against other writers' links (invariant 6), else acquire
  // (invariant 5 needs no more: the bits carry no data, and the head's load
  // orders the nodes).
  const Node* FindGroup(const format::KeyOrder& order, std::string_view user_key, uint64_t hash,
                        std::memory_order order_loads, uint32_t* filter) const {
    const Bucket& bucket = BucketOf(hash);
    const uint32_t bits = FilterBits(hash);
    *filter =
        bucket.filter.load(order_loads == std::memory_order_seq_cst ? std::memory_order_seq_cst
                                                                    : std::memory_order_relaxed);
    if ((*filter & bits) != bits) return nullptr;
    Node* prev = nullptr;
    return FindGroupIn(order, bucket.head.load(order_loads), 0, user_key, &prev);
  }
  // FindGroup for a reader (acquire), calling other(node) on each node of
  // another key it compares on the way: the rows the lookup relies on. If
  // other returns false, the walk stops: *stopped is set, nullptr returned.
  template <typename Fn>
  const Node* FindGroupSeeing(const format::KeyOrder& order, std::string_view user_key,
                              uint64_t hash, uint32_t* filter, Fn&& other, bool* stopped) const {
    const Bucket& bucket = BucketOf(hash);
    const uint32_t bits = FilterBits(hash);
    *filter = bucket.filter.load(std::memory_order_relaxed);
    if ((*filter & bits) != bits) return nullptr;
    for (RowRef r = bucket.head.load(std::memory_order_acquire); r != 0;) {
      const Node* n = NodeAt(region_, r);
      uint64_t tag;
      if (SameKey(order, format::RowUserKey(n->row(), &tag), user_key)) return n;
      if (!other(n)) {
        *stopped = true;
        return nullptr;
      }
      r = n->bucket_next.load(std::memory_order_acquire);  // invariant 3
    }
    return nullptr;
  }
  // From `group` (a group's first node) on, the newest version whose
  // sequence is at most `seq`, or nullptr. *tag: its tag.
  const Node* SkipNewer(const format::KeyOrder& order, const Node* group, std::string_view user_key,
                        uint64_t seq, uint64_t* tag) const {
    const Node* node = group;
    (void)format::RowUserKey(node->row(), tag);
    while (node != nullptr && TagSequence(*tag) > seq) {
      node = NextVersion(order, node, user_key, tag);
    }
    return node;
  }
  // Sets the split bit of hash's bucket (HashIndex: the key may have groups
  // in older tables too) and the key's older bits (HashIndex, invariant 8).
  // seq_cst: ordered after the caller's own link. REQUIRES: older words.
  void MarkSplit(uint64_t hash) {
    BucketOf(hash).filter.fetch_or(kSplitBit, std::memory_order_seq_cst);
    OlderWord(hash).fetch_or(OlderBits(hash), std::memory_order_seq_cst);
  }
  // Whether a key of `hash` may be in an older table: its older bits (a
  // table with none has nothing older). relaxed: HashIndex orders it.
  bool MayBeOlder(uint64_t hash) const {
    if (older_ == nullptr) return false;
    const uint64_t bits = OlderBits(hash);
    return (OlderWord(hash).load(std::memory_order_relaxed) & bits) == bits;
  }
  static constexpr uint32_t kSplitBit = uint32_t{1} << 31;

  // Sets, in this table's older words, the bits of every key of `older`:
  // afterwards a key whose older bits are unset has no node in `older`. Reads every node of `older`
  // (a growth reads each older table once: about a node for every eight inserts, with HashIndex's
  // growth of 8). Runs while writers link into both tables; `older`'s heads are loaded seq_cst
  // (HashIndex, invariant 8).
  void Cover(const HashTable& older) {
    // kLanes chains walked in step, each node prefetched a round ahead, so
    // that their cache misses overlap.
    constexpr int kLanes = 16;
    struct Lane {
      const Node* node = nullptr;
      std::string_view group_key;
    } lanes[kLanes];
    uint64_t next_bucket = 0;
    for (int busy = 0;;) {
      for (Lane& lane : lanes) {
        while (lane.node == nullptr && next_bucket < older.count_) {
          lane.node =
              NodeAt(region_, older.buckets_[next_bucket++].head.load(std::memory_order_seq_cst));
          lane.group_key = {};
          if (lane.node != nullptr) {
            __builtin_prefetch(lane.node);
            ++busy;
          }
        }
      }
      if (busy == 0) return;
      for (Lane& lane : lanes) {
        if (lane.node == nullptr) continue;
        uint64_t tag;
        const std::string_view key = format::RowUserKey(lane.node->row(), &tag);
        // A group's first node (by bytes: a key's hash is of its bytes).
        if (lane.group_key.data() == nullptr || key != lane.group_key) {
          lane.group_key = key;
          const uint64_t hash = util::Hash(key);
          const uint64_t bits = OlderBits(hash);
          std::atomic<uint64_t>& word = OlderWord(hash);
          // relaxed: Generations publishes the cover (its invariant 4).
          if ((word.load(std::memory_order_relaxed) & bits) != bits) {
            word.fetch_or(bits, std::memory_order_relaxed);
          }
        }
        lane.node = Next(lane.node);  // invariant 3
        if (lane.node != nullptr) {
          __builtin_prefetch(lane.node);
        } else {
          --busy;
        }
      }
    }
  }

  // The next older version of `user_key` after `node` (one of its versions),
  // or nullptr at the group's end. *tag: the version's tag.
  const Node* NextVersion(const format::KeyOrder& order, const Node* node,
                          std::string_view user_key, uint64_t* tag) const {
    const Node* next = Next(node);
    if (next == nullptr || !SameKey(order, format::RowUserKey(next->row(), tag), user_key)) {
      return nullptr;
    }
    return next;
  }

  // For a batch of lookups (MultiGet), which overlaps their cache misses:
  // the hash of an internal key's user key; a prefetch of its bucket; once
  // that has arrived, a prefetch of the chain's first node where the filter
  // does not rule the key out. Prefetches only read and never fault.
  static uint64_t HashOf(std::string_view internal_key) {
    return util::Hash(format::UserKey(internal_key));
  }
  void PrefetchBucket(uint64_t hash) const { __builtin_prefetch(&BucketOf(hash)); }
  void PrefetchOlder(uint64_t hash) const {
    if (older_ != nullptr) __builtin_prefetch(&OlderWord(hash));
  }
  void PrefetchHead(uint64_t hash) const {
    const Bucket& bucket = BucketOf(hash);
    const uint32_t bits = FilterBits(hash);
    if ((bucket.filter.load(std::memory_order_relaxed) & bits) != bits) return;
    const Node* node = NodeAt(region_, bucket.head.load(std::memory_order_acquire));
    if (node != nullptr) __builtin_prefetch(node);
  }

 private:
  const Node* Next(const Node* node) const {
    return NodeAt(region_, node->bucket_next.load(std::memory_order_acquire));
  }
  // User-key equality: bytes for memrep's own orders; the comparator for a
  // custom one (whose equal keys hash alike: the rep hashes bytes, so it
  // requires a comparator under which only equal bytes compare equal).
  static bool SameKey(const format::KeyOrder& order, std::string_view a, std::string_view b) {
    return order.kind() == format::KeyOrder::Kind::kCustom ? order.CompareUserKeys(a, b) == 0
                                                           : a == b;
  }
  // The first node of user_key's group among the nodes from `from` down to
  // `stop` (exclusive), and the node before it (nullptr: none); nullptr if
  // the key has no node there.
  Node* FindGroupIn(const format::KeyOrder& order, RowRef from, RowRef stop,
                    std::string_view user_key, Node** before) const {
    Node* prev = nullptr;
    for (RowRef r = from; r != stop && r != 0;) {
      Node* n = NodeAt(region_, r);
      uint64_t tag;
      if (SameKey(order, format::RowUserKey(n->row(), &tag), user_key)) {
        *before = prev;
        return n;
      }
      prev = n;
      r = n->bucket_next.load(std::memory_order_acquire);  // invariant 3
    }
    return nullptr;
  }

  // Links `node` (of user_key, with tag) into the key's group, found after
  // `prev` (nullptr: at the head), in sequence order; false, linking
  // nothing, if the group has a version of its sequence.
  bool LinkVersion(const format::KeyOrder& order, Bucket& bucket, Node* node, RowRef ref,
                   std::string_view user_key, uint64_t tag, Node* prev) {
    const uint64_t seq = TagSequence(tag);
    std::atomic<RowRef>* link = prev == nullptr ? &bucket.head : &prev->bucket_next;
    // Whether `link` is a version's of the key (else it precedes the group).
    bool in_group = false;
    // acquire: pairs with the release CAS that published `next`.
    RowRef next = link->load(std::memory_order_acquire);
    for (;;) {
      for (Node* n = NodeAt(region_, next); n != nullptr; n = NodeAt(region_, next)) {
        uint64_t n_tag;
        const bool same = SameKey(order, format::RowUserKey(n->row(), &n_tag), user_key);
        if (same) {
          const uint64_t n_seq = TagSequence(n_tag);
          if (n_seq == seq) return false;
          if (n_seq < seq) break;
        } else if (in_group) {
          break;  // past the group's oldest version
        }
        // A newer version; or, before the group, a new group at the head or
        // a version of the preceding key linked after prev (invariant 2):
        // step over it.
        link = &n->bucket_next;
        in_group = same;
        next = link->load(std::memory_order_acquire);
      }
      // relaxed: node is not yet visible; the CAS below releases it.
      node->bucket_next.store(next, std::memory_order_relaxed);
      // release: publishes the node (invariant 3). On failure a node was
      // linked after the same link, and `next` is it: look again from there
      // (invariant 1).
      if (link->compare_exchange_strong(next, ref, std::memory_order_release,
                                        std::memory_order_acquire)) {
        return true;
      }
    }
  }

  // A key's bucket: the low 32 bits of its hash scaled to the count (so
  // any count spreads keys evenly).
  Bucket& BucketOf(uint64_t hash) const { return buckets_[util::FastRange32(hash, count_)]; }
  // A key's two filter bits, of the 31 below kSplitBit, from hash bits
  // BucketOf does not use.
  static uint32_t FilterBits(uint64_t hash) {
    return (uint32_t{1} << (((hash >> 32) & 0xff) % 31)) |
           (uint32_t{1} << (((hash >> 40) & 0xff) % 31));
  }
  // A key's older word (of its bucket's 8) and two of its 64 bits, from
  // hash bits neither BucketOf nor FilterBits uses.
  std::atomic<uint64_t>& OlderWord(uint64_t hash) const {
    return older_[util::FastRange32(hash, count_) / 8];
  }
  static uint64_t OlderBits(uint64_t hash) {
    return (uint64_t{1} << ((hash >> 48) & 63)) | (uint64_t{1} << ((hash >> 56) & 63));
  }

  const uint64_t count_;
  const uint64_t older_words_;  // 0: no older table below this one
  const RowRegion& region_;
  Bucket* buckets_ = nullptr;               // in the allocator's memory, or mapped
  std::atomic<uint64_t>* older_ = nullptr;  // older_words_ words, after the buckets
  bool mapped_ = false;
};

}  // namespace memrep::sorted_hash
