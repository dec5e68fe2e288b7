// SpinLock: a lock for critical sections of a few instructions (a pointer
// copy and a reference count) that many threads take often: the run set and
// the shared tail a reader takes a view of (src/runs/).
//
// Why not Mutex: glibc's mutex sends a thread that finds it held to sleep in
// the kernel at once, and its holder wakes it with another system call. For
// a critical section of a few dozen cycles taken by 15 readers beside a
// writer, that turns every collision into two system calls (more still
// under a sandboxing kernel, where a system call costs microseconds), and
// the lock's throughput falls to what the kernel can hand it over, far below
// what the section needs. A spinner instead waits the few cycles the holder
// needs.
//
// A holder the scheduler preempted (more runnable threads than cores) holds
// the lock for a time slice: after kSpins pauses a waiter yields its core
// instead of spinning that slice away, as the trie's node locks do.
//
// Thread safety: Lock, TryLock and Unlock from any thread; Unlock only by
// the holder. Not reentrant. Critical sections must not block, allocate or
// free (freeing the old value of a shared pointer is done after Unlock).
// Memory orders: Lock's successful exchange is an acquire, Unlock's store a
// release, so everything written under the lock is seen by the next holder.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "concurrency/mutex.h"

namespace memrep::concurrency {

class CAPABILITY("mutex") SpinLock {
 public:
  SpinLock() = default;
  SpinLock(const SpinLock&) = delete;
  SpinLock& operator=(const SpinLock&) = delete;

  void Lock() ACQUIRE() {
    for (uint32_t spins = 0;; ++spins) {
      // Test before the exchange: waiters read the line shared and only the
      // one that sees it free writes it.
      if (!held_.load(std::memory_order_relaxed) &&
          !held_.exchange(true, std::memory_order_acquire)) {
        return;
      }
      if (spins < kSpins) {
        Pause();
      } else {
        std::this_thread::yield();
      }
    }
  }
  bool TryLock() TRY_ACQUIRE(true) {
    return !held_.load(std::memory_order_relaxed) &&
           !held_.exchange(true, std::memory_order_acquire);
  }
  void Unlock() RELEASE() { held_.store(false, std::memory_order_release); }

 private:
  static constexpr uint32_t kSpins = 128;
  static void Pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  std::atomic<bool> held_{false};
};

// Holds a SpinLock for its scope.
class SCOPED_CAPABILITY SpinLockHolder {
 public:
  explicit SpinLockHolder(SpinLock* lock) ACQUIRE(lock) : lock_(lock) { lock_->Lock(); }
  ~SpinLockHolder() RELEASE() { lock_->Unlock(); }
  SpinLockHolder(const SpinLockHolder&) = delete;
  SpinLockHolder& operator=(const SpinLockHolder&) = delete;

 private:
  SpinLock* const lock_;
};

}  // namespace memrep::concurrency
