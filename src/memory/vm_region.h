// VmRegion: one contiguous address range reserved up front, handed out from
// its start by a bump pointer, and addressed by offsets from its base, so the
// same bytes mean the same thing in anonymous memory, on huge pages or in a
// file mapping (the trie rep lives in one; docs/trie.md).
//
//   base ─► [ used: bumped, touched as written ][ reserved, not resident ... ] capacity
//
// Kinds of backing (VmRegionOptions):
//   - anonymous mmap (use_vm = true): PROT_READ|WRITE, MAP_PRIVATE|ANONYMOUS|
//     NORESERVE; pages become resident when first written;
//   - the allocator (use_vm = false): one calloc of the capacity and a page,
//     its start aligned up to a page inside it. calloc makes it read as zero;
//     glibc serves a block over its mmap threshold (at most 32 MiB) from a
//     fresh mapping it does not clear, so its pages too become resident when
//     first written (a smaller block, or a sanitizer's calloc, is cleared,
//     and so resident, at once). A path wins over use_vm = false;
//   - a file (path non-empty): the file is created (or truncated), sized to
//     the capacity as a sparse file, and mapped MAP_SHARED, so what is written
//     is in the page cache and, after a process crash, in the file;
//   - huge pages: kTransparent asks for transparent huge pages
//     (madvise(MADV_HUGEPAGE); a kernel without them ignores the request);
//     kExplicit maps MAP_HUGETLB pages, which the system must have reserved
//     (vm.nr_hugepages), the mapping rounded up to 2 MiB (capacity() stays as
//     asked), and needs use_vm = true. Neither applies to a file.
//   - explicit commit: the pages of each new stretch the bump pointer enters
//     are made resident at once, by the thread that crosses into it
//     (madvise(MADV_POPULATE_WRITE) where the kernel has it, else touching
//     each page), 2 MiB at a time and before the Bump that needs them returns,
//     so a later write never page-faults for lack of memory.
//
// Thread safety: Bump, base, used, capacity from any thread. Truncate, Sync
// and the destructor from one thread, with no Bump running.
// Invariants:
//  1. used() only grows and never exceeds capacity(); [0, used()) has been
//     handed out, [used(), capacity()) has not.
//  2. capacity() only changes in Truncate, which lowers it to no less than
//     used().
//  3. Explicit commit: the pages of [0, committed_) have been made resident,
//     or are being made resident by the thread that claimed them. A thread
//     whose Bump ends in a stretch being made resident does not wait: its
//     pages fault in as usual if it writes first.
// Limitations: if making a stretch resident fails (OutOfMemory) after
// another thread has claimed the stretch past it, the failed stretch stays
// counted as committed and its pages fault in when written, as without
// explicit commit. Explicit huge pages are reserved for the whole mapping
// when it is made (no MAP_NORESERVE), so a short pool fails Open, not a
// later write.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "memrep/status.h"

namespace memrep::memory {

struct VmRegionOptions {
  enum class HugePages : uint8_t { kNone, kTransparent, kExplicit };
  uint64_t capacity = uint64_t{2} << 30;  // bytes reserved; > 0
  bool use_vm = true;
  HugePages huge_pages = HugePages::kNone;
  bool explicit_commit = false;
  // Non-empty: back the region by this file (created, or truncated if it exists).
  std::string path;
};

class VmRegion {
 public:
  // Reserves the range. InvalidArgument (a zero capacity, huge pages on a
  // file, explicit huge pages with use_vm = false), OutOfMemory (the address space or explicit huge
  // pages cannot be had; the message says which and what to change), IOError (the file: the message
  // names the path and errno's text).
  static Status Open(const VmRegionOptions& options, std::unique_ptr<VmRegion>* out);
  // Maps an existing file read-only (length = its size) for reading what a
  // region left in it. used() and capacity() are the file size; Bump and
  // Truncate fail with NotSupported. IOError as Open, and for an empty file
  // or one that is not a regular file.
  static Status OpenReadOnly(const std::string& path, std::unique_ptr<VmRegion>* out);
  ~VmRegion();  // unmaps (a file stays, with what was written)
  VmRegion(const VmRegion&) = delete;
  VmRegion& operator=(const VmRegion&) = delete;

  char* base() const { return base_; }
  uint64_t capacity() const { return capacity_; }
  uint64_t used() const { return used_.load(std::memory_order_acquire); }
  bool file_backed() const { return fd_ >= 0; }
  // The backing file's descriptor (-1 if none), open while the region is,
  // for writes that should not go through the mapping (a pwrite fills one
  // page where a first touch of a sparse mapping faults in a readahead window).
  int fd() const { return fd_; }
  bool read_only() const { return read_only_; }
  const std::string& path() const { return path_; }

  // Hands out `bytes` (REQUIRES: a multiple of 4, > 0; InvalidArgument
  // otherwise) at the end of what is used: *offset is its start, 4-byte
  // aligned. Lock-free. Full if it would pass `limit` (a limit over the
  // capacity counts as the capacity; callers keep a reserve by passing less
  // than the capacity). OutOfMemory if explicit commit could not make the
  // pages resident. NotSupported on a read-only region. On any failure
  // nothing is handed out and used() is unchanged.
  Status Bump(uint64_t bytes, uint64_t limit, uint64_t* offset);
  Status Bump(uint64_t bytes, uint64_t* offset) { return Bump(bytes, capacity_, offset); }

  // A file-backed region: shrinks the file to `bytes` (>= used(), else
  // InvalidArgument; the mapping keeps its length, and the bytes past the
  // file's end must not be touched again) and lowers capacity() to `bytes`,
  // so no later Bump hands them out. Other regions: OK, nothing to do.
  // IOError on failure; NotSupported on a read-only region.
  Status Truncate(uint64_t bytes);
  // A file-backed region: msync(MS_SYNC) of [0, bytes) (<= capacity(), else
  // InvalidArgument), then fsync of the file. Other regions, and a read-only
  // one: OK. IOError on failure.
  Status Sync(uint64_t bytes);

 private:
  VmRegion() = default;
  // Explicit commit: makes [committed_, end) resident, a 2 MiB stretch or
  // more at a time, unless it is or is being already.
  Status Commit(uint64_t end);
  Status Populate(uint64_t from, uint64_t to);
  char* base_ = nullptr;
  uint64_t capacity_ = 0;  // bytes usable
  uint64_t mapped_ = 0;    // bytes mapped (>= capacity_ with explicit huge pages)
  int fd_ = -1;
  bool read_only_ = false;
  bool mmapped_ = true;         // false: base_ came from the allocator
  void* allocation_ = nullptr;  // !mmapped_: what calloc returned (base_ is inside it)
  bool explicit_commit_ = false;
  std::string path_;
  std::atomic<uint64_t> used_{0};
  std::atomic<uint64_t> committed_{0};  // explicit commit: see invariant 3
};

}  // namespace memrep::memory
