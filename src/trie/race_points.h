// Race points: the places in the trie's concurrency protocol where one
// thread pausing widens a race window for the others, so that a test can
// make rare interleavings common (as Pebble's arenaskl race tests inject
// delays). A build with MEMREP_RACE_POINTS (the ThreadSanitizer lane turns
// it on; -DMEMREP_RACE_POINTS=ON elsewhere) calls the hook a test installs
// at each point; every other build compiles the points to nothing.
//
//   kBeforeLock     a writer has read a node (or its parent) and decided
//                   what to change, and is about to lock it: another writer
//                   may replace the node or fill the slot meanwhile (the
//                   checks after locking must catch it)
//   kBeforeRetire   a node's copy is linked and both locks are released,
//                   but the node is not yet counted as replaced nor retired:
//                   readers may still be inside it
//   kReaderStep     a reader has loaded a child's Ref and is about to read
//                   the child, which a writer may replace meanwhile (its
//                   memory must stay readable: the epoch guard)
//   kAfterRecheck   an iterator has checked that its path is still good and
//                   is about to walk it (nodes replaced meanwhile must not be
//                   reused while it does)
//
// Thread safety: SetRaceHook from any thread, while no trie call runs
// (tests install a hook before starting threads and remove it after).
#pragma once

#include <atomic>
#include <cstdint>

#ifndef MEMREP_RACE_POINTS
#define MEMREP_RACE_POINTS 0
#endif

namespace memrep::trie {

enum class RacePoint : uint8_t { kBeforeLock, kBeforeRetire, kReaderStep, kAfterRecheck };

inline constexpr bool kRacePoints = MEMREP_RACE_POINTS != 0;

using RaceHook = void (*)(RacePoint);

#if MEMREP_RACE_POINTS

inline std::atomic<RaceHook> race_hook{nullptr};

// Installs (or, with nullptr, removes) the hook every race point calls.
inline void SetRaceHook(RaceHook hook) { race_hook.store(hook, std::memory_order_release); }

#define MEMREP_TRIE_RACE_POINT(point)                                    \
  do {                                                                   \
    if (::memrep::trie::RaceHook hook_ =                                 \
            ::memrep::trie::race_hook.load(std::memory_order_acquire)) { \
      hook_(::memrep::trie::RacePoint::point);                           \
    }                                                                    \
  } while (0)

#else

inline void SetRaceHook(RaceHook) {}

#define MEMREP_TRIE_RACE_POINT(point) ((void)0)

#endif

}  // namespace memrep::trie
