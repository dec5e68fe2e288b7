// ColumnTable: one table of the columnar rep's point index (ColumnIndex, in
// column_index.h, grows by adding tables), a concurrent open-addressing
// table from user key to the key's newest version, with fingerprints.
//
//   bucket (64 bytes) = [ ref ] x 12 | [ fp ] x 12 | overflow ref
//   ref  (4 bytes)    = the RowRef of the newest version of a key; 0: empty
//   fp   (1 byte)     = 1..255, from the hash's top byte; 0: not yet written
//   overflow (4)      = the RowRef of the next bucket (in the row region),
//                       and in its low bit the split mark of a home bucket:
//                       a key of the bucket may have versions in older
//                       tables too (ColumnIndex). Overflow buckets are
//                       64-byte aligned in 8-byte aligned chunks, so their
//                       refs (4-byte units) are even.
//   home bucket       = (low 32 bits of the hash × bucket count) >> 32: any
//                       count, no rounding to a power of two
//   older (8 bytes)   = per home bucket, after the buckets: a bit per key of
//                       the older tables whose home is here (bit
//                       fingerprint % 64), set by Cover and MarkSplit
//                       (ColumnIndex: a key whose bit is unset is in no
//                       older table)
//   versions: ref -> newest -> older -> ... (Node::older, sequence descending)
//
// A probe reads one bucket (one cache line) and compares keys only where a
// fingerprint matches (or is not yet written), so a miss, or a hit on another
// key of the bucket, mostly touches nothing else (1 in 255 of the other keys
// matches by chance: one more line); a hit then reads its node, whose header
// and row start share a line. 12 slots of 5 bytes make 5.3 bytes a slot,
// where 7 slots of a 4-byte fingerprint and a 4-byte ref took 9.1. A bucket
// that fills links an overflow bucket, taken from the inserting writer's
// OverflowStash: slabs from the rep's RowRegion, so that a 4-byte RowRef
// names an overflow bucket. The home buckets come from the rep's Allocator
// (RocksDB's memtable arena, so that a WriteBufferManager counts them), or,
// above kMaxArenaBytes, are mapped (and charged by the rep).
//
// Thread safety: Insert from many threads at once (each with a stash of its
// own); Find runs concurrently with them and takes no lock.
// Invariants:
//  1. A slot's ref is written once from 0, by the CAS that claims the slot,
//     and after that only moves to a newer version of the same key. Its
//     fingerprint is stored once, after that claim, by the claimer; a reader
//     that finds it still 0 compares the key. Slots of a bucket are claimed
//     in order: a slot is only tried once every slot before it was seen
//     claimed; so an empty slot ends the search (for what was published
//     before the search began).
//  2. Version chains are strictly descending by sequence; a node is linked
//     only between a newer predecessor and an older successor that the CAS
//     confirms, and nodes are never unlinked (as in the sorted hash index).
//  3. A node's row is complete before the release CAS that links it (slot or
//     `older`); readers follow links with acquire loads.
//  4. An overflow bucket is zeroed before the release CAS that links it,
//     and linked once. The split mark is only ever set, by a fetch_or; the
//     CAS that links an overflow bucket keeps it.
//  5. A new key's slot claim is seq_cst, and so are Find's loads when a
//     writer asks (ColumnIndex's ordering of two writers that link the same
//     new key into two tables), an overflow bucket's link, and Cover's loads
//     (ColumnIndex's covering).
//  6. An `older` word's bits are only ever set, by fetch_or.
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include "columnar/node.h"
#include "format/key_order.h"
#include "memrep/rep.h"
#include "memrep/status.h"
#include "util/assert.h"
#include "util/fast_range.h"
#include "util/hash64.h"

namespace memrep::columnar {

class ColumnTable {
 public:
  static constexpr int kSlots = 12;
  struct alignas(64) Bucket {
    std::atomic<RowRef> refs[kSlots];
    std::atomic<uint8_t> fingerprints[kSlots];
    std::atomic<RowRef> overflow;
  };
  static_assert(sizeof(Bucket) == 64, "a bucket is one cache line");
  // A home bucket's bytes, with its older word.
  static constexpr size_t kBytesPerBucket = sizeof(Bucket) + sizeof(uint64_t);

  // Overflow buckets a writer takes kSlab at a time (one node of the row
  // region, kSlab + 1 lines long, so that every bucket is aligned to a line
  // whatever the node's alignment). Only its holder touches it.
  struct OverflowStash {
    static constexpr uint32_t kSlab = 8;
    RowRef next = 0;  // the next bucket's ref
    uint32_t left = 0;
    RowRef spare = 0;  // taken, never linked (a lost race): reused first
  };

  // REQUIRES: bucket_count >= 1 and < 2^32; the region's unit is
  // kNodeUnitBytes; Init() before any other call.
  // with_older: whether the table has older ones below it (and so older
  // words).
  ColumnTable(uint64_t bucket_count, RowRegion* region, bool with_older)
      : count_(bucket_count), with_older_(with_older), region_(*region) {
    MEMREP_ASSERT(bucket_count > 0 && bucket_count < (uint64_t{1} << 32));
  }
  ~ColumnTable() {
    if (mapped_) ::munmap(buckets_, MappedBytes());
  }
  ColumnTable(const ColumnTable&) = delete;
  ColumnTable& operator=(const ColumnTable&) = delete;

  // Buckets up to this many bytes come from the Allocator, zeroed; more are
  // mapped (fresh zero pages, touched as buckets are used).
  static constexpr size_t kMaxArenaBytes = size_t{64} << 20;

  // OutOfMemory if the buckets cannot be had.
  Status Init(Allocator* allocator) {
    Status s = InitBuckets(allocator);
    // The older words, zeroed with the buckets, follow them.
    if (s.ok() && with_older_) older_ = reinterpret_cast<std::atomic<uint64_t>*>(buckets_ + count_);
    return s;
  }

  uint64_t bucket_count() const { return count_; }
  // The table's bytes: its buckets and their older words.
  size_t bytes() const { return count_ * (with_older_ ? kBytesPerBucket : sizeof(Bucket)); }
  // The bytes mapped rather than the Allocator's (the rep charges them).
  size_t MappedBytesCharged() const { return mapped_ ? MappedBytes() : 0; }

  // Whether a key of `hash` may be in an older table (ColumnIndex): its bit
  // in its home bucket's older word. relaxed: ColumnIndex orders it.
  bool MayBeOlder(uint64_t hash) const {
    if (older_ == nullptr) return false;  // nothing older
    return (older_[util::FastRange32(hash, count_)].load(std::memory_order_relaxed) &
            OlderBit(Fingerprint(hash))) != 0;
  }
  // Sets the split mark of hash's home bucket and the key's older bit.
  // seq_cst: ordered after the caller's own link (ColumnIndex). REQUIRES:
  // older words.
  void MarkSplit(uint64_t hash) {
    const uint64_t home = util::FastRange32(hash, count_);
    buckets_[home].overflow.fetch_or(kSplitMark, std::memory_order_seq_cst);
    older_[home].fetch_or(OlderBit(Fingerprint(hash)), std::memory_order_seq_cst);
  }
  // Sets, in the older words here, the bit of every key of `older` (in its
  // home bucket here): afterwards a key whose bit is unset has no version in
  // `older`. Reads every key of `older` (a growth reads each older table
  // once). Runs while writers link into both tables; `older`'s slots and
  // overflow links are loaded seq_cst (invariant 5).
  void Cover(const ColumnTable& older) {
    // The keys' nodes are read kAhead buckets ahead of their use, their
    // buckets twice that, so that the cache misses overlap.
    constexpr uint64_t kAhead = 4;
    for (uint64_t b = 0; b < older.count_; ++b) {
      if (b + 2 * kAhead < older.count_) __builtin_prefetch(&older.buckets_[b + 2 * kAhead]);
      if (b + kAhead < older.count_) {
        const Bucket& ahead = older.buckets_[b + kAhead];
        for (int i = 0; i < kSlots; ++i) {
          const RowRef r = ahead.refs[i].load(std::memory_order_acquire);  // invariant 3
          if (r == 0) break;
          __builtin_prefetch(NodeAt(region_, r));
        }
      }
      for (const Bucket* bucket = &older.buckets_[b]; bucket != nullptr;) {
        int i = 0;
        for (; i < kSlots; ++i) {
          const RowRef r = bucket->refs[i].load(std::memory_order_seq_cst);
          if (r == 0) break;  // invariant 1
          uint64_t tag;
          const uint64_t hash = util::Hash(NodeAt(region_, r)->user_key(&tag));
          std::atomic<uint64_t>& word = older_[util::FastRange32(hash, count_)];
          const uint64_t bit = OlderBit(Fingerprint(hash));
          // relaxed: Generations publishes the cover (its invariant 4).
          if ((word.load(std::memory_order_relaxed) & bit) == 0) {
            word.fetch_or(bit, std::memory_order_relaxed);
          }
        }
        const RowRef next = bucket->overflow.load(std::memory_order_seq_cst) & ~kSplitMark;
        bucket = i == kSlots && next != 0 ? older.BucketAt(next) : nullptr;
      }
    }
  }

 private:
  Status InitBuckets(Allocator* allocator) {
    if (bytes() <= kMaxArenaBytes) {
      // One line more, to align the buckets to a line.
      char* p = allocator->AllocateAligned(bytes() + sizeof(Bucket));
      if (p != nullptr) {
        const auto at = (reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t{63};
        std::memset(reinterpret_cast<void*>(at), 0, bytes());  // every slot empty
        buckets_ = reinterpret_cast<Bucket*>(at);
      }
    } else {
      void* p = ::mmap(nullptr, MappedBytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
      if (p != MAP_FAILED) {
        buckets_ = static_cast<Bucket*>(p);  // zero pages: every slot empty
        mapped_ = true;
        // Probes land anywhere in the array: huge pages spare most of their
        // TLB misses. Advice only.
        ::madvise(p, MappedBytes(), MADV_HUGEPAGE);
      }
    }
    if (buckets_ == nullptr) {
      return Status::OutOfMemory("could not allocate the columnar index's " +
                                 std::to_string(bytes()) +
                                 " bytes of buckets; use a smaller bucket_count");
    }
    return Status::OK();
  }

 public:
  // Overflow buckets linked (their slabs are row region nodes, which the
  // Allocator counts).
  uint64_t overflow_buckets() const { return overflow_.load(std::memory_order_relaxed); }

  // kLinked: the key's first version; kLinkedVersion: a newer one (the key
  // had versions, whose key was compared).
  enum class Result { kLinked, kLinkedVersion, kDuplicate, kNoMemory };

  // Links node `ref` (complete but for `older`, which this sets) under its
  // user key. kDuplicate: the key already has a version with this sequence,
  // and nothing was linked. kNoMemory: an overflow bucket was needed and none
  // could be had; nothing was linked.
  Result Insert(const format::KeyOrder& order, RowRef ref, uint64_t hash, OverflowStash* stash) {
    Node* node = NodeAt(region_, ref);
    uint64_t tag;
    const std::string_view key = node->user_key(&tag);
    const uint8_t fp = Fingerprint(hash);
    Bucket* bucket = Home(hash);
    for (;;) {
      for (int i = 0; i < kSlots; ++i) {
        std::atomic<RowRef>& slot = bucket->refs[i];
        // acquire: pairs with the release CAS that claimed or moved the slot.
        RowRef v = slot.load(std::memory_order_acquire);
        if (v == 0) {
          node->older.store(0, std::memory_order_relaxed);
          // seq_cst (a release at least): publishes the node (invariant 3),
          // and invariant 5.
          if (slot.compare_exchange_strong(v, ref, std::memory_order_seq_cst,
                                           std::memory_order_seq_cst)) {
            // relaxed: readers that see 0 compare the key (invariant 1).
            bucket->fingerprints[i].store(fp, std::memory_order_relaxed);
            return Result::kLinked;
          }
          // Claimed meanwhile (invariant 1): v is the claimer's; look at it.
        }
        if (MayMatch(*bucket, i, fp) && SameKey(order, v, key)) {
          return LinkVersion(slot, v, ref, node, TagSequence(tag)) ? Result::kLinkedVersion
                                                                   : Result::kDuplicate;
        }
      }
      RowRef link = bucket->overflow.load(std::memory_order_acquire);  // invariant 4
      while ((link & ~kSplitMark) == 0) {
        const RowRef fresh = NewOverflow(stash);
        if (fresh == 0) return Result::kNoMemory;
        MEMREP_ASSERT((fresh & kSplitMark) == 0);
        // release: publishes the zeroed bucket (invariant 4), keeping the
        // mark; seq_cst for invariant 5. A loser keeps its bucket for its
        // next overflow (rare: two writers filling one bucket) and reads
        // the link again.
        if (bucket->overflow.compare_exchange_strong(link, fresh | (link & kSplitMark),
                                                     std::memory_order_seq_cst,
                                                     std::memory_order_acquire)) {
          overflow_.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
          link = fresh;
          break;
        }
        stash->spare = fresh;
      }
      bucket = BucketAt(link & ~kSplitMark);
    }
  }

  // The newest version of `user_key` (whose hash is `hash`), or 0; *split:
  // whether its home bucket has the split mark. `order_loads`: seq_cst for
  // a writer that must be ordered against other writers' links (invariant
  // 5), else acquire (invariant 3).
  RowRef Find(const format::KeyOrder& order, std::string_view user_key, uint64_t hash,
              std::memory_order order_loads, bool* split) const {
    *split = (Home(hash)->overflow.load(std::memory_order_relaxed) & kSplitMark) != 0;
    RowRef found = 0;
    ForEachCandidate(hash, order_loads, [&](RowRef v) {
      if (!SameKey(order, v, user_key)) return true;
      found = v;
      return false;
    });
    return found;
  }
  // Find for a reader (acquire), calling other(v) on each candidate of
  // another key it compares on the way: the rows the lookup relies on. If
  // other returns false, the walk stops: *stopped is set, 0 returned.
  template <typename Fn>
  RowRef FindSeeing(const format::KeyOrder& order, std::string_view user_key, uint64_t hash,
                    bool* split, Fn&& other, bool* stopped) const {
    *split = (Home(hash)->overflow.load(std::memory_order_relaxed) & kSplitMark) != 0;
    RowRef found = 0;
    ForEachCandidate(hash, std::memory_order_acquire, [&](RowRef v) {
      if (SameKey(order, v, user_key)) {
        found = v;
        return false;
      }
      *stopped = !other(v);
      return !*stopped;
    });
    return found;
  }
  // Calls fn(v) on every slot's row whose fingerprint matches hash's, home
  // bucket first, until fn returns false (then returns false): the rows a
  // Find of a key of `hash` compares. `slot_loads`: as Find's order_loads.
  template <typename Fn>
  bool ForEachCandidate(uint64_t hash, std::memory_order slot_loads, Fn&& fn) const {
    const uint8_t fp = Fingerprint(hash);
    const Bucket* bucket = Home(hash);
    for (;;) {
      for (int i = 0; i < kSlots; ++i) {
        const RowRef v = bucket->refs[i].load(slot_loads);  // invariant 3
        if (v == 0) return true;                            // invariant 1
        if (MayMatch(*bucket, i, fp) && !fn(v)) return false;
      }
      const RowRef next = bucket->overflow.load(std::memory_order_acquire) & ~kSplitMark;
      if (next == 0) return true;  // invariant 4
      bucket = BucketAt(next);
    }
  }
  RowRef Find(const format::KeyOrder& order, std::string_view user_key, uint64_t hash) const {
    bool split;
    return Find(order, user_key, hash, std::memory_order_acquire, &split);
  }
  // Links `ref` as a newer version of the key whose newest version `v` is
  // (found by Find in this table): false if the key has a version of ref's
  // sequence, and nothing was linked.
  bool LinkVersionOf(const format::KeyOrder& order, RowRef v, RowRef ref, uint64_t hash) {
    Node* node = NodeAt(region_, ref);
    uint64_t tag;
    const std::string_view key = node->user_key(&tag);
    std::atomic<RowRef>* slot = SlotOf(order, key, hash, v);
    return slot != nullptr &&
           LinkVersion(*slot, slot->load(std::memory_order_acquire), ref, node, TagSequence(tag));
  }

  // The next older version after `ref`, or 0.
  RowRef Older(RowRef ref) const {
    return NodeAt(region_, ref)->older.load(std::memory_order_acquire);  // invariant 3
  }

  // Loads the bucket a hash lands in: for reading (Find), or to write (Insert).
  void Prefetch(uint64_t hash) const { __builtin_prefetch(Home(hash)); }
  void PrefetchForInsert(uint64_t hash) const { __builtin_prefetch(Home(hash), 1); }
  // Loads the older word of the hash's home bucket (ColumnIndex reads it
  // for a key the newest table does not hold).
  void PrefetchOlder(uint64_t hash) const {
    if (older_ != nullptr) __builtin_prefetch(&older_[util::FastRange32(hash, count_)]);
  }
  // For an insert to come whose bucket is loaded by now: loads the node of
  // the version a fingerprint in its first bucket matches (its header and
  // key), which the insert compares its key with when the key has versions.
  void PrefetchVersion(uint64_t hash) const {
    const uint8_t fp = Fingerprint(hash);
    const Bucket& bucket = *Home(hash);
    for (int i = 0; i < kSlots; ++i) {
      const RowRef v = bucket.refs[i].load(std::memory_order_acquire);  // invariant 3
      if (v == 0) return;
      if (bucket.fingerprints[i].load(std::memory_order_relaxed) != fp) continue;
      __builtin_prefetch(NodeAt(region_, v));
      return;
    }
  }

 private:
  // 1..255: 0 marks a fingerprint not yet written.
  static uint8_t Fingerprint(uint64_t hash) {
    const auto top = static_cast<uint8_t>(hash >> 56);
    return top == 0 ? 1 : top;
  }
  // Whether slot i, seen claimed, may hold a key of fingerprint fp.
  static bool MayMatch(const Bucket& bucket, int i, uint8_t fp) {
    // relaxed: a hint; 0 (not yet written) makes the caller compare keys.
    const uint8_t f = bucket.fingerprints[i].load(std::memory_order_relaxed);
    return f == fp || f == 0;
  }
  // The home bucket: the low half of the hash scaled to the count (the top
  // byte is the fingerprint, so the two are independent).
  Bucket* Home(uint64_t hash) const { return &buckets_[util::FastRange32(hash, count_)]; }
  static uint64_t OlderBit(uint8_t fp) { return uint64_t{1} << (fp % 64); }
  Bucket* BucketAt(RowRef ref) const { return reinterpret_cast<Bucket*>(region_.At(ref)); }
  size_t MappedBytes() const { return (bytes() + 4095) & ~size_t{4095}; }

  bool SameKey(const format::KeyOrder& order, RowRef ref, std::string_view key) const {
    uint64_t tag;
    return order.CompareUserKeys(NodeAt(region_, ref)->user_key(&tag), key) == 0;
  }

  // Links `ref` into the version chain whose head the slot holds (`v`).
  bool LinkVersion(std::atomic<RowRef>& slot, RowRef v, RowRef ref, Node* node,
                   SequenceNumber seq) {
    for (;;) {  // from the head
      RowRef next = v;
      Node* prev = nullptr;
      for (;;) {
        while (next != 0) {
          Node* n = NodeAt(region_, next);
          const SequenceNumber next_seq = n->sequence();
          if (next_seq == seq) return false;
          if (next_seq < seq) break;
          prev = n;
          next = n->older.load(std::memory_order_acquire);
        }
        // relaxed: the node is not yet linked; the CAS below releases it.
        node->older.store(next, std::memory_order_relaxed);
        if (prev == nullptr) {
          RowRef expected = next;
          // release: publishes the node (invariant 3). On failure a newer
          // version became the head: start again from it.
          if (slot.compare_exchange_strong(expected, ref, std::memory_order_release,
                                           std::memory_order_acquire)) {
            return true;
          }
          v = expected;
          break;
        }
        if (prev->older.compare_exchange_strong(next, ref, std::memory_order_release,
                                                std::memory_order_acquire)) {
          return true;
        }
        // A version was linked after prev (invariant 2): rescan from prev.
      }
    }
  }

  // The ref of a zeroed, line-aligned bucket from the stash (a new slab when
  // it is empty), or 0 if the row region has no room.
  RowRef NewOverflow(OverflowStash* stash) {
    if (stash->spare != 0) return std::exchange(stash->spare, 0);
    if (stash->left == 0) {
      constexpr size_t kSlabBytes = (OverflowStash::kSlab + 1) * sizeof(Bucket);
      RowRef slab;
      if (!region_.Allocate(kSlabBytes - region_.header_bytes(), &slab).ok()) return 0;
      // A slab is one node, inside one chunk: refs count kNodeUnitBytes
      // units from its start. Aligned to the cache line here.
      const auto start = reinterpret_cast<uintptr_t>(region_.At(slab));
      const uintptr_t skip = ((start + 63) & ~uintptr_t{63}) - start;
      stash->next = slab + static_cast<RowRef>(skip / kNodeUnitBytes);
      stash->left = OverflowStash::kSlab;
      for (uint32_t i = 0; i < OverflowStash::kSlab; ++i) {
        new (BucketAt(stash->next + i * (sizeof(Bucket) / kNodeUnitBytes))) Bucket();
      }
    }
    --stash->left;
    const RowRef bucket = stash->next;
    stash->next += sizeof(Bucket) / kNodeUnitBytes;
    return bucket;
  }

  // The slot that holds the key's chain (whose head was `v` when found).
  std::atomic<RowRef>* SlotOf(const format::KeyOrder& order, std::string_view key, uint64_t hash,
                              RowRef v) {
    const uint8_t fp = Fingerprint(hash);
    for (Bucket* bucket = Home(hash);;) {
      for (int i = 0; i < kSlots; ++i) {
        const RowRef r = bucket->refs[i].load(std::memory_order_acquire);
        if (r == 0) return nullptr;
        if (r == v || (MayMatch(*bucket, i, fp) && SameKey(order, r, key))) return &bucket->refs[i];
      }
      const RowRef next = bucket->overflow.load(std::memory_order_acquire) & ~kSplitMark;
      if (next == 0) return nullptr;
      bucket = BucketAt(next);
    }
  }

  static constexpr RowRef kSplitMark = 1;

  const uint64_t count_;
  const bool with_older_;
  RowRegion& region_;
  Bucket* buckets_ = nullptr;
  std::atomic<uint64_t>* older_ = nullptr;  // count_ words, after the buckets
  bool mapped_ = false;
  std::atomic<uint64_t> overflow_{0};
};

}  // namespace memrep::columnar
