// PageAllocator: a std::allocator for big, short-lived arrays (the sorted
// runs' arrays, which merges keep replacing). An array of at least kMinBytes
// is mapped straight from the kernel and unmapped when freed, so its memory
// leaves the process at once. Through malloc it may not: once a mapped block
// is freed, glibc raises its mmap threshold (up to 32 MiB) and serves later
// blocks of that size from its heap, where freed memory mostly stays resident.
// Smaller arrays use operator new.
//
// Thread safety: as operator new. Stateless: all instances are equal.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <new>

namespace memrep::memory {

inline constexpr size_t kPageAllocatorMinBytes = size_t{64} << 10;

template <typename T>
class PageAllocator {
 public:
  using value_type = T;

  PageAllocator() = default;
  template <typename U>
  PageAllocator(const PageAllocator<U>&) {}  // NOLINT: rebinding, as std::allocator

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const size_t bytes = n * sizeof(T);
    if (bytes < kPageAllocatorMinBytes) return static_cast<T*>(::operator new(bytes));
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }

  void deallocate(T* p, size_t n) noexcept {
    const size_t bytes = n * sizeof(T);
    if (bytes < kPageAllocatorMinBytes) {
      ::operator delete(p);
    } else {
      ::munmap(p, bytes);
    }
  }

  template <typename U>
  bool operator==(const PageAllocator<U>&) const {
    return true;
  }
};

}  // namespace memrep::memory
