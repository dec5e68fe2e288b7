// WriteList: every inserted node, in insertion order, on one of kShards
// lock-free stacks. It is how the background worker and iterators find the
// entries that are not yet in a sorted run.
//
//   shard i: head -> newest -> ... -> oldest -> 0   (NodeRefs, via Node::list_next)
//
// Thread safety: Push from any thread; each thread pushes to the shard of its
// ThreadSlot, so concurrent writers touch different cache lines. Head and
// Count from any thread.
// Invariants:
//  1. A shard only grows at its head: every node ever at the head stays
//     reachable from every later head. So the nodes pushed after a head `h`
//     was observed are exactly those between the current head and `h`.
//  2. A node's list_next is written before the release CAS that makes it the
//     head; an acquire load of the head makes the whole chain below it visible.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "sorted_hash/node.h"
#include "util/thread_slot.h"

namespace memrep::sorted_hash {

class WriteList {
 public:
  static constexpr size_t kShards = 16;
  using Heads = std::array<NodeRef, kShards>;

  // Returns the number of nodes the calling thread's shard holds after the push.
  // `ref` is node's reference in its region.
  uint64_t Push(Node* node, NodeRef ref) {
    Shard& shard = shards_[util::ThreadSlot() % kShards];
    NodeRef head = shard.head.load(std::memory_order_relaxed);
    do {
      node->list_next = head;
      // release: publishes node->list_next and the entry (invariant 2).
    } while (!shard.head.compare_exchange_weak(head, ref, std::memory_order_release,
                                               std::memory_order_relaxed));
    // relaxed: a count for statistics and scheduling, not for visibility.
    return shard.count.fetch_add(1, std::memory_order_relaxed) + 1;
  }

  Heads LoadHeads() const {
    Heads heads;
    for (size_t i = 0; i < kShards; ++i) {
      heads[i] = shards_[i].head.load(std::memory_order_acquire);  // invariant 2
    }
    return heads;
  }

  // Nodes pushed so far (may lag a push in progress by one per shard).
  uint64_t Count() const {
    uint64_t total = 0;
    for (const Shard& shard : shards_) total += shard.count.load(std::memory_order_relaxed);
    return total;
  }

  // Calls fn(node, ref) for each node pushed after `older` and up to `newer`,
  // per shard, newest first. REQUIRES: older[i] was a head of shard i no later than newer[i].
  template <typename Fn>
  static void ForEachBetween(const NodeRegion& region, const Heads& newer, const Heads& older,
                             Fn&& fn) {
    for (size_t i = 0; i < kShards; ++i) {
      for (NodeRef r = newer[i]; r != older[i];) {
        const Node* n = NodeAt(region, r);
        fn(n, r);
        r = n->list_next;
      }
    }
  }

 private:
  struct alignas(util::kCacheLine) Shard {
    std::atomic<NodeRef> head{0};
    std::atomic<uint64_t> count{0};
  };
  std::array<Shard, kShards> shards_;
};

}  // namespace memrep::sorted_hash
