// Run points: the places in the run index's background work where a test
// may hold a thread, so that an interleaving it needs (a writer's merge
// beside the strand's big merge, Close during a merge, no merge between two
// reads) comes in every run instead of when the scheduler allows (as
// trie/race_points.h does for the trie). A build with MEMREP_RUN_POINTS
// (CMake turns it on in builds with assertions: the tsan, asan and
// standalone lanes; -DMEMREP_RUN_POINTS=ON elsewhere) calls the hook a test
// installs at each point: an acquire load of a pointer, once per background
// task or merge, nothing on the write or read paths. Every other build
// (release) compiles the points to nothing.
//
//   kStrandStep  the strand's task begins (BackgroundWork), before it
//                takes work_mu_: holding it keeps the strand from cutting
//                or merging, while writers and readers go on
//   kMerge       a background merge (the strand's or a helping writer's)
//                has picked its inputs and is about to merge them; Close
//                may cancel it from here on
//   kBigMerge    the strand has set a big merge's inputs aside and let go
//                of work_mu_, and is about to merge them: writers may cut
//                and merge the other runs meanwhile
//
// Thread safety: SetRunHook from any thread, while no index that the hook
// may see does background work (tests install a hook before making the
// index, or while its strand is held elsewhere, and remove it after Close).
#pragma once

#include <atomic>
#include <cstdint>

#ifndef MEMREP_RUN_POINTS
#define MEMREP_RUN_POINTS 0
#endif

namespace memrep::runs {

class RunIndex;

enum class RunPoint : uint8_t { kStrandStep, kMerge, kBigMerge };

inline constexpr bool kRunPoints = MEMREP_RUN_POINTS != 0;

using RunHook = void (*)(RunPoint, const RunIndex&);

#if MEMREP_RUN_POINTS

inline std::atomic<RunHook> run_hook{nullptr};

// Installs (or, with nullptr, removes) the hook every run point calls.
inline void SetRunHook(RunHook hook) { run_hook.store(hook, std::memory_order_release); }

// Inside a RunIndex member: calls the hook with the point and the index.
#define MEMREP_RUN_POINT(point)                                                                   \
  do {                                                                                            \
    if (::memrep::runs::RunHook hook_ = ::memrep::runs::run_hook.load(std::memory_order_acquire)) \
      hook_(::memrep::runs::RunPoint::point, *this);                                              \
  } while (0)

#else

inline void SetRunHook(RunHook) {}

#define MEMREP_RUN_POINT(point) ((void)0)

#endif

}  // namespace memrep::runs
