// BlockAllocator: a std::allocator for the sorted runs' arrays and objects
// (MakeShared), which merges and the shared tail's refreshes keep replacing,
// often freed by another thread than the one that made them (a reader lets
// go of the last view of a level a writer built). They go through BlockCache
// below, never straight to malloc:
//  - glibc's malloc frees a block into the arena of the thread that
//    allocated it, under that arena's lock, which sends a thread that finds
//    it held to sleep in the kernel: readers that drop levels a writer made
//    queue on the writer's arena while the writer allocates the next ones
//    (the counts: docs/results/2026-11-28-matrix-2-cores-aac058f-block-cache.md);
//  - once a mapped block is freed, glibc raises its mmap threshold (up to
//    32 MiB) and serves later blocks of that size from its heap, where freed
//    memory mostly stays resident without bound.
//
// Thread safety: as operator new. Stateless: all instances are equal.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

#include "concurrency/per_thread.h"
#include "concurrency/shared_writes.h"
#include "concurrency/spin_lock.h"
#include "memory/populate.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define MEMREP_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define MEMREP_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define MEMREP_POISON(p, n) ((void)(p), (void)(n))
#define MEMREP_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace memrep::memory {

// Blocks of at least this many bytes are mapped from the kernel (and leave
// the process when unmapped); smaller ones come from operator new.
inline constexpr size_t kMappedMinBytes = size_t{64} << 10;

// BlockCache: the blocks BlockAllocator hands out, in size classes (powers of
// two from kMinBlock to kMaxCachedBlock), and bounded caches of freed ones:
//  - per thread (ThreadSlot), for the classes up to kLocalMaxBlock, up to
//    kLocalKeep blocks each: a reader's own levels, made and let go of by the
//    same thread at every seek beside a writer, touch no line another thread
//    writes (as glibc's per-thread cache kept them);
//  - per class, shared, under the class's own spin lock (a few loads and
//    stores; no system call, allocation or free under it): what a thread's
//    own cache has no room for, and where it looks when its own is empty. So
//    a block a reader frees is the writer's next one, with no arena lock
//    between them.
// A mapped block comes back resident: mapping afresh costs a system call, a
// fault per page as the merge writes it (each zeroed by the kernel) and,
// when unmapped, a TLB flush on every core that runs a thread of the
// process, more under a sandboxing kernel. A shared class keeps at most
// Keep(its size) = max(2, kClassBytes / size) blocks, kMaxPerClass at most
// (about 13 MiB in all), a thread's cache at most 64 KiB; beyond that a freed
// block is freed (small) or unmapped (mapped), and blocks bigger than
// kMaxCachedBlock are always unmapped at once. A block mapped afresh has the
// whole pages its array spans populated in one call (PrefaultWholePages:
// the array is written in full). Under AddressSanitizer a cached block is poisoned, so a
// use after free still reports.
//
// Thread safety: Take and Give from any thread. A thread's own cache is
// taken under its own spin lock too (threads that share a ThreadSlot share
// it: correct, slower); no thread holds two of these locks at once.
class BlockCache {
 public:
  static constexpr size_t kMinBlock = 64;
  static constexpr size_t kMaxCachedBlock = size_t{2} << 20;
  static constexpr size_t kClassBytes = size_t{1} << 20;
  static constexpr size_t kMaxPerClass = 64;
  static constexpr size_t kLocalMaxBlock = size_t{4} << 10;
  static constexpr size_t kLocalKeep = 8;
  static constexpr size_t kThreads = 64;

  // The process's cache. Never destroyed (arrays freed during exit may still
  // come back to it).
  static BlockCache& Shared() {
    static BlockCache* const cache = new BlockCache();
    return *cache;
  }

  // The bytes a block for `bytes` spans: its size class up to
  // kMaxCachedBlock, else `bytes` itself.
  static size_t BlockBytes(size_t bytes) {
    return bytes <= kMaxCachedBlock ? std::bit_ceil(std::max(bytes, kMinBlock)) : bytes;
  }
  // Blocks a shared class keeps at most.
  static constexpr size_t Keep(size_t block) {
    return std::min(kMaxPerClass, std::max(size_t{2}, kClassBytes / block));
  }

  // A block of at least `bytes`, writable: a cached one of its class (the
  // thread's own first), else a new one. nullptr if there is no memory.
  void* Take(size_t bytes) {
    const size_t block = BlockBytes(bytes);
    if (block <= kMaxCachedBlock) {
      void* p = TakeCached(block);
      if (p != nullptr) {
        MEMREP_UNPOISON(p, block);
        return p;
      }
    }
    if (block < kMappedMinBytes) return ::operator new(block, std::nothrow);
    void* p = ::mmap(nullptr, block, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    PrefaultWholePages(static_cast<char*>(p), bytes);  // advice: the array is written in full
    return p;
  }

  // Takes back a block Take gave for `bytes`: cached if there is room (the
  // thread's own cache first), else freed.
  void Give(void* p, size_t bytes) noexcept {
    const size_t block = BlockBytes(bytes);
    if (block <= kMaxCachedBlock) {
      MEMREP_POISON(p, block);
      if (GiveCached(p, block)) return;
      MEMREP_UNPOISON(p, block);
    }
    if (block < kMappedMinBytes) {
      ::operator delete(p);
    } else {
      ::munmap(p, block);
    }
  }

  // For tests and benchmarks: the bytes cached now (every thread's), and the
  // blocks Take found cached so far.
  size_t CachedBytes() {
    size_t bytes = 0;
    for (size_t i = 0; i < kClasses; ++i) {
      concurrency::SpinLockHolder lock(&classes_[i].mu);
      bytes += classes_[i].count * (kMinBlock << i);
    }
    locals_.ForEach([&](Local& local) {
      concurrency::SpinLockHolder lock(&local.mu);
      for (size_t i = 0; i < kLocalClasses; ++i) bytes += local.count[i] * (kMinBlock << i);
    });
    return bytes;
  }
  uint64_t Reused() {
    uint64_t n = 0;
    for (Class& c : classes_) {
      concurrency::SpinLockHolder lock(&c.mu);
      n += c.reused;
    }
    locals_.ForEach([&](Local& local) {
      concurrency::SpinLockHolder lock(&local.mu);
      n += local.reused;
    });
    return n;
  }

 private:
  BlockCache() = default;
  static constexpr size_t kMinShift = std::countr_zero(kMinBlock);
  static constexpr size_t kClasses = std::countr_zero(kMaxCachedBlock) - kMinShift + 1;
  static constexpr size_t kLocalClasses = std::countr_zero(kLocalMaxBlock) - kMinShift + 1;
  static size_t ClassOf(size_t block) { return std::countr_zero(block) - kMinShift; }

  void* TakeCached(size_t block) {
    const size_t k = ClassOf(block);
    if (k < kLocalClasses) {
      Local& local = locals_.Mine();
      concurrency::SpinLockHolder lock(&local.mu);
      if (local.count[k] > 0) {
        ++local.reused;
        return local.blocks[k][--local.count[k]];
      }
    }
    Class& c = classes_[k];
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kBlockClass);
    concurrency::SpinLockHolder lock(&c.mu);
    if (c.count == 0) return nullptr;
    ++c.reused;
    return c.blocks[--c.count];
  }
  bool GiveCached(void* p, size_t block) {
    const size_t k = ClassOf(block);
    if (k < kLocalClasses) {
      Local& local = locals_.Mine();
      concurrency::SpinLockHolder lock(&local.mu);
      if (local.count[k] < kLocalKeep) {
        local.blocks[k][local.count[k]++] = p;
        return true;
      }
    }
    Class& c = classes_[k];
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kBlockClass);
    concurrency::SpinLockHolder lock(&c.mu);
    if (c.count < Keep(block)) {
      c.blocks[c.count++] = p;
      return true;
    }
    return false;
  }

  // Each class, and each thread's cache, on lines of its own.
  struct alignas(concurrency::kCacheLine) Class {
    concurrency::SpinLock mu;
    size_t count GUARDED_BY(mu) = 0;
    uint64_t reused GUARDED_BY(mu) = 0;  // a statistic (Reused)
    std::array<void*, kMaxPerClass> blocks GUARDED_BY(mu){};
  };
  struct Local {
    concurrency::SpinLock mu;
    std::array<uint8_t, kLocalClasses> count GUARDED_BY(mu){};
    uint64_t reused GUARDED_BY(mu) = 0;  // a statistic (Reused)
    std::array<std::array<void*, kLocalKeep>, kLocalClasses> blocks GUARDED_BY(mu){};
  };
  std::array<Class, kClasses> classes_;
  concurrency::PerThread<Local, kThreads> locals_;
};

template <typename T>
class BlockAllocator {
 public:
  using value_type = T;

  BlockAllocator() = default;
  template <typename U>
  BlockAllocator(const BlockAllocator<U>&) {}  // NOLINT: rebinding, as std::allocator

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    void* p = BlockCache::Shared().Take(n * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept { BlockCache::Shared().Give(p, n * sizeof(T)); }

  template <typename U>
  bool operator==(const BlockAllocator<U>&) const {
    return true;
  }
};

// A shared object and its count in one block of the cache: for the runs'
// objects that one thread makes and another lets go of last (a tail, a run,
// a run set), which through make_shared would be freed into the maker's
// arena under its lock.
template <typename T, typename... Args>
std::shared_ptr<T> MakeShared(Args&&... args) {
  return std::allocate_shared<T>(BlockAllocator<T>(), std::forward<Args>(args)...);
}

}  // namespace memrep::memory

#undef MEMREP_POISON
#undef MEMREP_UNPOISON
