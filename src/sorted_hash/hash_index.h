// HashIndex: an array of buckets, each the head of a lock-free singly linked
// chain of nodes kept in internal-key order, and a filter of the user keys
// that chain holds.
//
//   bucket (8 bytes) = [ head: RowRef (4) | filter: 32 bits (4) ]
//   chain:   head -> n1 -> n2 -> ... (ascending internal key; links are
//            RowRefs into the rep's RowRegion)
//   filter:  two bits per user key linked, chosen by hash bits the bucket's
//            position does not use: a probe whose two bits are not both set
//            knows the key is absent from the bucket's one cache line, and
//            reads no node.
//
// The bucket count is any number (a key's bucket is the high half of a
// 32-bit hash times the count), so the array is sized to the write buffer
// exactly rather than to the next power of two. The array is taken from the
// rep's Allocator (RocksDB's memtable arena in the RocksDB face), so that
// RocksDB's memory accounting, and a WriteBufferManager, count it.
//
// Thread safety: Insert may run from many threads at once; Find and Next run
// concurrently with them and take no lock.
// Invariants:
//  1. Nodes are never removed, so a node's successor only changes by a new
//     node being linked directly after it.
//  2. A chain is strictly ascending: a node is linked only between a
//     predecessor that is smaller and a successor that is larger, checked
//     against the successor value the CAS then confirms.
//  3. A node's fields are complete before the release CAS that links it;
//     readers follow links with acquire loads, so they see complete nodes.
//  4. Filter bits are only ever set, and a node's bits are set before the
//     CAS that links it. So a reader to which an insert happened before (it
//     returned before the read began) sees the bits: a filter that lacks
//     them proves the key absent. The bits carry no data, so relaxed
//     operations suffice; a reader that sees bits of a node still being
//     linked walks the chain and finds nothing, as it would a moment earlier.
// Cost: insert and lookup walk one chain, of expected length count/buckets;
// a lookup of a key the bucket does not hold reads the bucket alone (but for
// the filter's false positives: about 1 in 250 with one other key in the
// bucket, 1 in 30 with three).
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "format/key_order.h"
#include "memrep/rep.h"
#include "memrep/status.h"
#include "sorted_hash/node.h"
#include "util/assert.h"
#include "util/hash64.h"

namespace memrep::sorted_hash {

class HashIndex {
 public:
  struct Bucket {
    std::atomic<RowRef> head;
    std::atomic<uint32_t> filter;
  };
  static_assert(sizeof(Bucket) == 8, "a bucket is a 4-byte link and a 32-bit filter");

  // REQUIRES: 0 < bucket_count <= 2^32; Init() before any other call.
  HashIndex(uint64_t bucket_count, const RowRegion* region)
      : count_(bucket_count), region_(*region) {
    MEMREP_ASSERT(bucket_count > 0 && bucket_count <= (uint64_t{1} << 32));
  }
  HashIndex(const HashIndex&) = delete;
  HashIndex& operator=(const HashIndex&) = delete;

  // Takes the buckets from `allocator` and zeroes them: OutOfMemory if it
  // has not the memory. The memory is the allocator's (freed with it).
  Status Init(Allocator* allocator) {
    char* p = allocator->AllocateAligned(bytes());
    if (p == nullptr) {
      return Status::OutOfMemory("could not allocate the hash index's " + std::to_string(bytes()) +
                                 " bytes of buckets; use a smaller bucket_count or "
                                 "write_buffer_size");
    }
    // Probes land anywhere in the array: huge pages spare most of their TLB
    // misses. Advice only, on the 2 MiB pages wholly inside the array, and
    // before the first touch; a kernel without transparent huge pages
    // ignores it.
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes()) & ~(kHuge - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    std::memset(p, 0, bytes());
    buckets_ = reinterpret_cast<Bucket*>(p);  // zero: no chain, no filter bit
    return Status::OK();
  }

  uint64_t bucket_count() const { return count_; }
  size_t bytes() const { return count_ * sizeof(Bucket); }

  // Links `node` (whose reference is `ref`) into its chain. Returns false,
  // linking nothing, if a node with the same user key and sequence is present.
  bool Insert(const format::KeyOrder& order, Node* node, RowRef ref) {
    uint64_t tag;
    const std::string_view user_key = format::RowUserKey(node->row(), &tag);
    return Link(order, node, ref, user_key, tag, util::Hash(user_key));
  }
  // The same, given the hash of the node's user key.
  bool Insert(const format::KeyOrder& order, Node* node, RowRef ref, uint64_t hash) {
    uint64_t tag;
    const std::string_view user_key = format::RowUserKey(node->row(), &tag);
    return Link(order, node, ref, user_key, tag, hash);
  }
  // The first node of `user_key`'s chain whose entry is >= internal_key.
  const Node* Find(const format::KeyOrder& order, std::string_view internal_key) const {
    return Find(order, internal_key, HashOf(internal_key));
  }
  // The same, given HashOf(internal_key).
  const Node* Find(const format::KeyOrder& order, std::string_view internal_key,
                   uint64_t hash) const {
    const Bucket& bucket = BucketOf(hash);
    // relaxed: invariant 4 (the bits are set before the node is linked).
    const uint32_t bits = FilterBits(hash);
    if ((bucket.filter.load(std::memory_order_relaxed) & bits) != bits) return nullptr;
    const Node* node = NodeAt(region_, bucket.head.load(std::memory_order_acquire));
    while (node != nullptr && order.CompareRowToKey(node->row(), internal_key) < 0) {
      node = Next(node);
    }
    return node;
  }

  // For a batch of lookups (MultiGet), which overlaps their cache misses:
  // the hash of an internal key's user key; a prefetch of its bucket; once
  // that has arrived, a prefetch of the chain's first node. Prefetches only
  // read (a bucket's load is the acquire Find would make) and never fault.
  static uint64_t HashOf(std::string_view internal_key) {
    return util::Hash(internal_key.substr(0, internal_key.size() - 8));
  }
  void PrefetchBucket(uint64_t hash) const { __builtin_prefetch(&BucketOf(hash)); }
  void PrefetchHead(uint64_t hash) const {
    const Bucket& bucket = BucketOf(hash);
    const uint32_t bits = FilterBits(hash);
    if ((bucket.filter.load(std::memory_order_relaxed) & bits) != bits) return;
    const Node* node = NodeAt(region_, bucket.head.load(std::memory_order_acquire));
    if (node != nullptr) __builtin_prefetch(node);
  }

  const Node* Next(const Node* node) const {
    return NodeAt(region_, node->bucket_next.load(std::memory_order_acquire));
  }

 private:
  // Insert's work, with the node's user key, tag and hash already known.
  bool Link(const format::KeyOrder& order, Node* node, RowRef ref, std::string_view user_key,
            uint64_t tag, uint64_t hash) {
    Bucket& bucket = BucketOf(hash);
    // relaxed: invariant 4 (the CAS below orders it before the link; a
    // bucket whose bits are set already, most often by this key's older
    // versions, is not written).
    const uint32_t bits = FilterBits(hash);
    if ((bucket.filter.load(std::memory_order_relaxed) & bits) != bits) {
      bucket.filter.fetch_or(bits, std::memory_order_relaxed);
    }
    Node* prev = nullptr;
    for (;;) {
      // acquire: pairs with the release CAS that published `next`.
      RowRef next = prev == nullptr ? bucket.head.load(std::memory_order_acquire)
                                    : prev->bucket_next.load(std::memory_order_acquire);
      while (next != 0) {
        Node* next_node = NodeAt(region_, next);
        uint64_t next_tag;
        const std::string_view next_key = format::RowUserKey(next_node->row(), &next_tag);
        const int c = order.Compare(next_key, next_tag, user_key, tag);
        if (c == 0) return false;
        if (c > 0) break;
        prev = next_node;
        next = prev->bucket_next.load(std::memory_order_acquire);
      }
      // relaxed: node is not yet visible; the CAS below releases it.
      node->bucket_next.store(next, std::memory_order_relaxed);
      // release: publishes the node's entry and bucket_next to readers.
      // On failure a node was linked after prev (invariant 1): rescan from prev.
      bool linked = prev == nullptr
                        ? bucket.head.compare_exchange_strong(next, ref, std::memory_order_release,
                                                              std::memory_order_relaxed)
                        : prev->bucket_next.compare_exchange_strong(
                              next, ref, std::memory_order_release, std::memory_order_relaxed);
      if (linked) return true;
    }
  }

  // A key's bucket: the low 32 bits of its hash scaled to the count (so
  // any count spreads keys evenly).
  Bucket& BucketOf(uint64_t hash) const {
    return buckets_[((hash & 0xffffffffu) * count_) >> 32];
  }
  // A key's two filter bits, from hash bits BucketOf does not use.
  static uint32_t FilterBits(uint64_t hash) {
    return (uint32_t{1} << ((hash >> 32) & 31)) | (uint32_t{1} << ((hash >> 40) & 31));
  }

  const uint64_t count_;
  const RowRegion& region_;
  Bucket* buckets_ = nullptr;  // in the allocator's memory
};

}  // namespace memrep::sorted_hash
