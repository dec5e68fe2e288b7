// A small per-thread number, used to spread threads over shards so that
// concurrent writers touch different cache lines.
//
// The slot policy: a thread takes the smallest number no live thread holds
// (when it first asks), and gives it back when it exits, so the numbers of
// the threads alive at once are dense: with at most N threads alive, their
// numbers are in [0, N), and ThreadSlot() % N puts them on N different
// shards however many threads came and went before (RocksDB's background
// threads, a bench's writers of an earlier phase). With more threads alive
// than a structure has shards, `% N` makes some share a shard: every user
// of ThreadSlot must stay correct then (atomics or a lock on the shared
// shard), only slower; each says what sharing costs it (PerThread,
// invariant 2).
//
// It is on every insert's path, so the fast path is a TLS load and a test:
// the thread-local is constant-initialized (no init guard) and uses the
// initial-exec model (no __tls_get_addr call from a shared library; a
// 4-byte slot fits the static TLS room glibc keeps for a library that is
// preloaded or dlopen'ed). Only a thread's first call registers the
// thread-exit hook that gives the number back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <vector>

namespace memrep::concurrency {

namespace thread_slot_detail {

// Numbers handed out and given back. Leaked on purpose: threads may exit
// (and give their numbers back) after static destructors have run.
struct Registry {
  std::mutex mu;
  uint32_t next = 0;  // numbers >= next were never handed out
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> returned;

  static Registry& Get() {
    static Registry* const registry = new Registry;
    return *registry;
  }
  uint32_t Take() {
    std::lock_guard<std::mutex> lock(mu);
    if (returned.empty()) return next++;
    const uint32_t slot = returned.top();
    returned.pop();
    return slot;
  }
  void Give(uint32_t slot) {
    std::lock_guard<std::mutex> lock(mu);
    returned.push(slot);
  }
};

inline uint32_t& SlotPlusOne() {
  [[gnu::tls_model("initial-exec")]] static thread_local uint32_t slot_plus_one = 0;
  return slot_plus_one;
}

// Gives the thread's number back when the thread exits. The number is
// cleared first, so a later call on this thread (from another thread-local's
// destructor) takes a fresh number rather than use one given back; that one
// is never given back (a number lost, no harm: numbers stay unique).
struct Returner {
  uint32_t slot = 0;
  ~Returner() {
    SlotPlusOne() = 0;
    Registry::Get().Give(slot);
  }
};

[[gnu::noinline, gnu::cold]] inline uint32_t TakeSlot() {
  const uint32_t slot = Registry::Get().Take();
  SlotPlusOne() = slot + 1;
  // Constructed on the first call only (a thread-local's dynamic init),
  // which registers its destructor for this thread's exit.
  static thread_local Returner returner;
  returner.slot = slot;
  return slot;
}

}  // namespace thread_slot_detail

// The calling thread's number (see above). A thread keeps it for its life.
inline uint32_t ThreadSlot() {
  const uint32_t slot_plus_one = thread_slot_detail::SlotPlusOne();
  if (__builtin_expect(slot_plus_one == 0, 0)) return thread_slot_detail::TakeSlot();
  return slot_plus_one - 1;
}

inline constexpr size_t kCacheLine = 64;

}  // namespace memrep::concurrency
