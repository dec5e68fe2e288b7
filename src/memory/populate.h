// Populating pages: making memory resident and writable in one call
// (madvise MADV_POPULATE_WRITE, Linux 5.14) rather than one page fault per
// page as it is first written. VmRegion commits its stretches with it.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels answer EINVAL
#endif

namespace memrep::memory {

// Makes the pages of [begin, end) resident and writable now. REQUIRES: both
// page-aligned. Returns 0, or madvise's errno (EINVAL: a kernel before 5.14).
inline int PopulateWrite(char* begin, char* end) noexcept {
  if (end <= begin) return 0;
  if (::madvise(begin, static_cast<size_t>(end - begin), MADV_POPULATE_WRITE) == 0) return 0;
  return errno;
}

// The whole pages inside [p, p + n), as advice: memory about to be written in
// full faults in at once. Failure (an old kernel, no memory) changes nothing;
// the pages then fault in as they are written.
inline void PrefaultWholePages(char* p, size_t n) noexcept {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + n) & ~(page - 1);
  PopulateWrite(reinterpret_cast<char*>(begin), reinterpret_cast<char*>(end));
}

}  // namespace memrep::memory
