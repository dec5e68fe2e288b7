// RunPointHold: holds the threads that reach a run point (runs/run_points.h)
// until the test lets them go, so that the interleaving a test needs comes
// in every run: the strand held inside its big merge while a writer helps,
// held at the start of a merge until Close has begun, held before its step
// while readers take views.
//
// A held thread goes on when the test calls Release, when its index begins
// to close (Close sets the cancel flag before it waits for the strand), or
// after `limit`: the bound for a build that breaks what the test checks (a
// writer that waits for the held strand, say), which then fails on what it
// expected instead of hanging. After a timeout the hold lets every thread
// pass, so that such a test costs one limit in all. One hold at a time in a process: the
// constructor installs the hook, the destructor releases and removes it.
// Only in builds with run points (kRunPoints); elsewhere the tests that use
// it are not compiled.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

#include "runs/run_index.h"
#include "runs/run_points.h"

namespace memrep::runs {

class RunPointHold {
 public:
  // Holds the threads of `index` (nullptr: of any index) that reach `point`.
  RunPointHold(RunPoint point, const RunIndex* index,
               std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    State& s = state();
    s.point.store(point, std::memory_order_relaxed);
    s.index.store(index, std::memory_order_relaxed);
    s.limit_ms.store(limit.count(), std::memory_order_relaxed);
    s.arrivals.store(0, std::memory_order_relaxed);
    s.timeouts.store(0, std::memory_order_relaxed);
    s.released.store(false, std::memory_order_relaxed);
    s.active.store(true, std::memory_order_release);
    SetRunHook(&Hook);
  }
  ~RunPointHold() {
    Release();
    state().active.store(false, std::memory_order_release);
    SetRunHook(nullptr);
    // Held threads leave before the next hold is set up.
    while (Held()) std::this_thread::yield();
  }
  RunPointHold(const RunPointHold&) = delete;
  RunPointHold& operator=(const RunPointHold&) = delete;

  // Whether a thread is held now.
  bool Held() const { return state().held.load(std::memory_order_acquire) > 0; }
  // Waits until a thread is held, for at most the limit; whether one is.
  bool WaitHeld() const {
    const auto deadline = std::chrono::steady_clock::now() + Limit();
    while (!Held() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return Held();
  }
  // Lets the held threads go, and every later one pass.
  void Release() { state().released.store(true, std::memory_order_release); }
  // Threads that reached the point (held, or passed after Release).
  uint64_t arrivals() const { return state().arrivals.load(std::memory_order_relaxed); }
  // Threads that went on because the limit passed, not because of Release
  // or Close: nonzero means the test waited for something that never came.
  uint64_t timeouts() const { return state().timeouts.load(std::memory_order_relaxed); }

 private:
  // Static, so that a thread that read it just before the hold ended reads
  // memory that is still there.
  struct State {
    std::atomic<bool> active{false};
    std::atomic<RunPoint> point{RunPoint::kStrandStep};
    std::atomic<const RunIndex*> index{nullptr};
    std::atomic<int64_t> limit_ms{0};
    std::atomic<bool> released{false};
    std::atomic<int> held{0};
    std::atomic<uint64_t> arrivals{0};
    std::atomic<uint64_t> timeouts{0};
  };
  static State& state() {
    static State s;
    return s;
  }
  static std::chrono::milliseconds Limit() {
    return std::chrono::milliseconds(state().limit_ms.load(std::memory_order_relaxed));
  }
  static void Hook(RunPoint point, const RunIndex& index) {
    State& s = state();
    if (!s.active.load(std::memory_order_acquire) ||
        point != s.point.load(std::memory_order_relaxed)) {
      return;
    }
    const RunIndex* only = s.index.load(std::memory_order_relaxed);
    if (only != nullptr && only != &index) return;
    s.arrivals.fetch_add(1, std::memory_order_relaxed);
    s.held.fetch_add(1, std::memory_order_acq_rel);
    const auto deadline = std::chrono::steady_clock::now() + Limit();
    while (!s.released.load(std::memory_order_acquire) && !index.Closing()) {
      if (std::chrono::steady_clock::now() >= deadline) {
        // What the test waited for did not come: every later thread
        // passes, so that the test ends soon and fails.
        s.timeouts.fetch_add(1, std::memory_order_relaxed);
        s.released.store(true, std::memory_order_release);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    s.held.fetch_sub(1, std::memory_order_acq_rel);
  }
};

}  // namespace memrep::runs
