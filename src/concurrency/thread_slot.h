// A small per-thread number, used to spread threads over shards so that
// concurrent writers touch different cache lines.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace memrep::concurrency {

// Threads are numbered in the order they first ask, so the first N threads of
// a process land on N different shards when there are at least N.
//
// It is on every insert's path (twice), so it costs a TLS load and a test:
// the thread-local is constant-initialized (no init guard) and uses the
// initial-exec model (no __tls_get_addr call from a shared library; a
// 4-byte slot fits the static TLS room glibc keeps for a library that is
// preloaded or dlopen'ed).
inline uint32_t ThreadSlot() {
  static std::atomic<uint32_t> next{0};
  [[gnu::tls_model("initial-exec")]] static thread_local uint32_t slot_plus_one = 0;
  if (__builtin_expect(slot_plus_one == 0, 0)) {
    // relaxed: only uniqueness matters, not ordering with other memory.
    slot_plus_one = next.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  return slot_plus_one - 1;
}

inline constexpr size_t kCacheLine = 64;

}  // namespace memrep::concurrency
