// HashIndex: a fixed array of buckets, each the head of a lock-free singly
// linked chain of nodes kept in internal-key order.
//
//   buckets: [ RowRef ][ RowRef ] ...  4 bytes each, power-of-two count,
//            fresh anonymous mmap: zero pages the kernel maps on first
//            touch, so creating an index touches no memory.
//   chain:   bucket -> n1 -> n2 -> ... (ascending internal key; links are
//            RowRefs into the rep's RowRegion)
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
// Cost: insert and lookup walk one chain, of expected length count/buckets.
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "format/key_order.h"
#include "memrep/status.h"
#include "sorted_hash/node.h"
#include "util/assert.h"
#include "util/hash64.h"

namespace memrep::sorted_hash {

class HashIndex {
 public:
  // REQUIRES: bucket_count is a power of two; Init() before any other call.
  HashIndex(uint64_t bucket_count, const RowRegion* region)
      : mask_(bucket_count - 1), region_(*region) {
    MEMREP_ASSERT(bucket_count > 0 && (bucket_count & (bucket_count - 1)) == 0);
  }
  ~HashIndex() {
    if (buckets_ != nullptr) ::munmap(buckets_, bytes());
  }
  HashIndex(const HashIndex&) = delete;
  HashIndex& operator=(const HashIndex&) = delete;

  // Maps the buckets: OutOfMemory if the address space cannot be had.
  Status Init() {
    void* p = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      return Status::OutOfMemory("could not map the hash index's " + std::to_string(bytes()) +
                                 " bytes of buckets; use a smaller bucket_count");
    }
    buckets_ = static_cast<RowRef*>(p);
    return Status::OK();
  }

  size_t bytes() const { return (mask_ + 1) * sizeof(RowRef); }

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
    std::atomic_ref<RowRef> bucket(buckets_[hash & mask_]);
    const Node* node = NodeAt(region_, bucket.load(std::memory_order_acquire));
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
  void PrefetchBucket(uint64_t hash) const { __builtin_prefetch(&buckets_[hash & mask_]); }
  void PrefetchHead(uint64_t hash) const {
    std::atomic_ref<RowRef> bucket(buckets_[hash & mask_]);
    const Node* node = NodeAt(region_, bucket.load(std::memory_order_acquire));
    if (node != nullptr) __builtin_prefetch(node);
  }

  const Node* Next(const Node* node) const {
    return NodeAt(region_, node->bucket_next.load(std::memory_order_acquire));
  }

 private:
  // Insert's work, with the node's user key, tag and hash already known.
  bool Link(const format::KeyOrder& order, Node* node, RowRef ref, std::string_view user_key,
            uint64_t tag, uint64_t hash) {
    std::atomic_ref<RowRef> bucket(buckets_[hash & mask_]);
    Node* prev = nullptr;
    for (;;) {
      // acquire: pairs with the release CAS that published `next`.
      RowRef next = prev == nullptr ? bucket.load(std::memory_order_acquire)
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
                        ? bucket.compare_exchange_strong(next, ref, std::memory_order_release,
                                                         std::memory_order_relaxed)
                        : prev->bucket_next.compare_exchange_strong(
                              next, ref, std::memory_order_release, std::memory_order_relaxed);
      if (linked) return true;
    }
  }

  const uint64_t mask_;
  const RowRegion& region_;
  RowRef* buckets_ = nullptr;  // accessed only through std::atomic_ref
};

}  // namespace memrep::sorted_hash
