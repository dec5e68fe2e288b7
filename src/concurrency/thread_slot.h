// A small per-thread number, used to spread threads over shards so that
// concurrent writers touch different cache lines.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace memrep::concurrency {

// Threads are numbered in the order they first ask, so the first N threads of
// a process land on N different shards when there are at least N.
inline uint32_t ThreadSlot() {
  static std::atomic<uint32_t> next{0};
  // relaxed: only uniqueness matters, not ordering with other memory.
  thread_local const uint32_t slot = next.fetch_add(1, std::memory_order_relaxed);
  return slot;
}

inline constexpr size_t kCacheLine = 64;

}  // namespace memrep::concurrency
