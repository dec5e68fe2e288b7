// Mutex, MutexLock and CondVar: std::mutex and std::condition_variable with
// clang's thread-safety annotations, so that `-Wthread-safety` (the clang
// lane of scripts/test.sh) checks every GUARDED_BY and REQUIRES in memrep at
// compile time. Other compilers see the same code without the attributes.
//
// Use GUARDED_BY(mu) on a member that mu protects, REQUIRES(mu) on a function
// that must be called with mu held, EXCLUDES(mu) on one that takes it.
#pragma once

#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define MEMREP_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define MEMREP_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) MEMREP_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY MEMREP_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) MEMREP_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) MEMREP_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) MEMREP_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) MEMREP_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) MEMREP_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) MEMREP_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) MEMREP_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS MEMREP_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace memrep::concurrency {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  // Takes the mutex if no one holds it; returns whether it did.
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for its scope.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  // Adopts a mutex the caller already holds (after a successful TryLock).
  MutexLock(Mutex* mu, std::adopt_lock_t) REQUIRES(mu) : mu_(mu) {}
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A condition variable waited on with a Mutex held. The mutex is named at
// each wait, so that clang checks the caller holds that very mutex.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Waits until pred() holds; mu is held whenever pred runs and on return.
  template <typename Pred>
  void Wait(Mutex* mu, Pred pred) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock, pred);
    lock.release();  // still held: the caller's MutexLock releases it
  }
  // As Wait, but gives up at `deadline`; returns pred().
  template <typename Clock, typename Duration, typename Pred>
  bool WaitUntil(Mutex* mu, const std::chrono::time_point<Clock, Duration>& deadline, Pred pred)
      REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool result = cv_.wait_until(lock, deadline, pred);
    lock.release();
    return result;
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace memrep::concurrency
