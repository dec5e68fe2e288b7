// PerThread<T, N>: N copies of T, each on cache lines of its own, and the
// calling thread's copy by ThreadSlot(). The one way memrep spreads writers
// over shards (allocation cursors, counters, write lists, statistics).
//
// Thread safety: the container itself is immutable after construction;
// what a thread may do to its copy, or to another thread's, is the copy's
// own business (its atomics, its lock).
//
// Invariants:
//   1. Every element starts on a cache-line boundary and no two elements
//      share a cache line: sizeof(Padded) is a multiple of kCacheLine.
//   2. A thread's index is ThreadSlot() % N, fixed for the thread's life.
//      ThreadSlot() gives live threads the smallest free numbers and takes
//      them back at thread exit, so while at most N threads are alive they
//      use N different elements; with more, some share one (slots k and
//      N + k): allowed and correct, only slower. Each user says what sharing
//      costs it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "concurrency/thread_slot.h"

namespace memrep::concurrency {

// The calling thread's shard among `shards` (a count known only at run time).
// REQUIRES: shards > 0.
inline uint32_t ThreadShard(uint32_t shards) { return ThreadSlot() % shards; }

template <typename T, size_t N>
class PerThread {
  static_assert(N > 0, "PerThread needs at least one element");

 public:
  static constexpr size_t kSize = N;

  PerThread() = default;
  PerThread(const PerThread&) = delete;
  PerThread& operator=(const PerThread&) = delete;

  // The calling thread's index, in [0, N).
  static size_t MineIndex() { return ThreadSlot() % N; }

  // The calling thread's element.
  T& Mine() { return items_[MineIndex()].value; }
  const T& Mine() const { return items_[MineIndex()].value; }

  // Element i, for sums over all of them and for tests. REQUIRES: i < N.
  T& operator[](size_t i) { return items_[i].value; }
  const T& operator[](size_t i) const { return items_[i].value; }

  static constexpr size_t size() { return N; }

  // Calls f(element) for each element, in index order.
  template <typename F>
  void ForEach(F&& f) {
    for (auto& item : items_) f(item.value);
  }
  template <typename F>
  void ForEach(F&& f) const {
    for (const auto& item : items_) f(item.value);
  }

 private:
  struct alignas(kCacheLine) Padded {
    T value{};
  };
  static_assert(sizeof(Padded) % kCacheLine == 0, "invariant 1");

  std::array<Padded, N> items_;
};

}  // namespace memrep::concurrency
