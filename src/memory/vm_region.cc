#include "memory/vm_region.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <new>
#include <string>
#include <system_error>

#include "concurrency/shared_writes.h"
#include "memory/populate.h"

namespace memrep::memory {
namespace {

using HugePages = VmRegionOptions::HugePages;

constexpr uint64_t kHugePageBytes = uint64_t{2} << 20;
// Explicit commit makes the pages resident this much at a time.
constexpr uint64_t kCommitStep = uint64_t{2} << 20;
// No x86-64 or AArch64 process maps more than 2^47 bytes without asking for
// addresses above it; refusing more up front also keeps the sums below from
// overflowing.
constexpr uint64_t kMaxCapacity = uint64_t{1} << 47;

uint64_t PageSize() {
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// REQUIRES: alignment is a power of two.
uint64_t RoundUp(uint64_t bytes, uint64_t alignment) {
  return (bytes + alignment - 1) & ~(alignment - 1);
}

std::string ErrnoText(int err) { return std::generic_category().message(err); }

std::string Quoted(const std::string& path) { return "'" + path + "'"; }

// An anonymous mapping of `bytes` (a multiple of the page, or of 2 MiB for
// explicit huge pages).
Status MapAnonymous(uint64_t bytes, HugePages huge_pages, char** base) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;
  // Explicit huge pages are reserved when mapped: without MAP_NORESERVE a
  // short pool fails here rather than with SIGBUS at a later write.
  flags |= huge_pages == HugePages::kExplicit ? MAP_HUGETLB : MAP_NORESERVE;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    if (huge_pages == HugePages::kExplicit) {
      return Status::OutOfMemory("explicit huge pages: could not map " + std::to_string(bytes) +
                                 " bytes (" + std::to_string(bytes / kHugePageBytes) +
                                 " pages of 2 MiB): " + ErrnoText(err) +
                                 "; reserve them with sysctl vm.nr_hugepages or use transparent "
                                 "huge pages (the trie: use_hugepage=transparent)");
    }
    return Status::OutOfMemory("could not reserve " + std::to_string(bytes) +
                               " bytes of address space for a region: " + ErrnoText(err) +
                               "; lower its capacity or raise the address space limit (ulimit -v)");
  }
  *base = static_cast<char*>(p);
  return Status::OK();
}

// Asks for transparent huge pages on [base, base + bytes). A kernel built
// without them (or with them set to never) answers EINVAL: the region then
// works on small pages, as it would with kNone.
Status AdviseHugePages(char* base, uint64_t bytes) {
  if (::madvise(base, bytes, MADV_HUGEPAGE) == 0) return Status::OK();
  const int err = errno;
  if (err == EINVAL) return Status::OK();
  return Status::OutOfMemory("transparent huge pages: madvise(MADV_HUGEPAGE) of " +
                             std::to_string(bytes) + " bytes failed: " + ErrnoText(err));
}

}  // namespace

Status VmRegion::Open(const VmRegionOptions& options, std::unique_ptr<VmRegion>* out) {
  const uint64_t capacity = options.capacity;
  const HugePages huge_pages = options.huge_pages;
  if (capacity == 0) {
    return Status::InvalidArgument("a region's capacity must be at least 1 byte, not 0");
  }
  if (capacity > kMaxCapacity) {
    return Status::OutOfMemory("a region of " + std::to_string(capacity) +
                               " bytes is larger than a process's address space (2^47 bytes); "
                               "lower its capacity");
  }
  if (!options.path.empty() && huge_pages != HugePages::kNone) {
    return Status::InvalidArgument("huge pages do not apply to a file-backed region (" +
                                   Quoted(options.path) + "): set huge_pages to none");
  }
  if (options.path.empty() && !options.use_vm && huge_pages == HugePages::kExplicit) {
    return Status::InvalidArgument(
        "explicit huge pages need use_vm=true (the allocator cannot give them); "
        "set use_vm or use transparent huge pages (the trie: use_hugepage=transparent)");
  }
  std::unique_ptr<VmRegion> region(new (std::nothrow) VmRegion());
  if (region == nullptr) return Status::OutOfMemory("could not allocate a region");
  region->capacity_ = capacity;
  region->explicit_commit_ = options.explicit_commit;
  const uint64_t page = PageSize();

  if (!options.path.empty()) {
    // A file wins over use_vm = false: the bytes must be the file's.
    region->path_ = options.path;
    const std::string& path = options.path;
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      const int err = errno;
      return Status::IOError("could not create the region file " + Quoted(path) + ": " +
                             ErrnoText(err));
    }
    region->fd_ = fd;  // the destructor closes it from here on
    // Sparse: blocks are allocated as pages are written back.
    if (::ftruncate(fd, static_cast<off_t>(capacity)) != 0) {
      const int err = errno;
      return Status::IOError("could not size the region file " + Quoted(path) + " to " +
                             std::to_string(capacity) + " bytes: " + ErrnoText(err));
    }
    const uint64_t mapped = RoundUp(capacity, page);
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      std::string message = "could not map the region file " + Quoted(path) + " (" +
                            std::to_string(capacity) + " bytes): " + ErrnoText(err);
      return err == ENOMEM ? Status::OutOfMemory(message + "; lower the region's capacity")
                           : Status::IOError(message);
    }
    region->base_ = static_cast<char*>(p);
    region->mapped_ = mapped;
  } else if (options.use_vm) {
    const uint64_t mapped =
        RoundUp(capacity, huge_pages == HugePages::kExplicit ? kHugePageBytes : page);
    Status s = MapAnonymous(mapped, huge_pages, &region->base_);
    if (!s.ok()) return s;
    region->mapped_ = mapped;
    if (huge_pages == HugePages::kTransparent) {
      s = AdviseHugePages(region->base_, mapped);
      if (!s.ok()) return s;
    }
  } else {
    // calloc's memory reads as zero, as a fresh mapping does, which callers
    // count on. A page more than asked lets the start be aligned to a page.
    const uint64_t usable = RoundUp(capacity, page);
    void* allocation = std::calloc(1, usable + page);
    if (allocation == nullptr) {
      return Status::OutOfMemory("could not allocate " + std::to_string(usable + page) +
                                 " bytes for a region with use_vm=false; lower its capacity "
                                 "or set use_vm, which reserves address space only");
    }
    region->mmapped_ = false;
    region->allocation_ = allocation;
    region->base_ = reinterpret_cast<char*>(RoundUp(reinterpret_cast<uintptr_t>(allocation), page));
    region->mapped_ = usable;
    if (huge_pages == HugePages::kTransparent) {
      Status s = AdviseHugePages(region->base_, usable);
      if (!s.ok()) return s;
    }
  }
  *out = std::move(region);
  return Status::OK();
}

Status VmRegion::OpenReadOnly(const std::string& path, std::unique_ptr<VmRegion>* out) {
  std::unique_ptr<VmRegion> region(new (std::nothrow) VmRegion());
  if (region == nullptr) return Status::OutOfMemory("could not allocate a region");
  region->path_ = path;
  region->read_only_ = true;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return Status::IOError("could not open the region file " + Quoted(path) +
                           " for reading: " + ErrnoText(err));
  }
  region->fd_ = fd;  // the destructor closes it from here on
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    return Status::IOError("could not stat the region file " + Quoted(path) + ": " +
                           ErrnoText(err));
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::IOError("the region file " + Quoted(path) + " is not a regular file");
  }
  if (st.st_size == 0) {
    return Status::IOError("the region file " + Quoted(path) +
                           " is empty: there is no region in it to read");
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  const uint64_t mapped = RoundUp(size, PageSize());
  void* p = ::mmap(nullptr, mapped, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    return Status::IOError("could not map the region file " + Quoted(path) + " (" +
                           std::to_string(size) + " bytes) for reading: " + ErrnoText(err));
  }
  region->base_ = static_cast<char*>(p);
  region->mapped_ = mapped;
  region->capacity_ = size;
  region->used_.store(size, std::memory_order_relaxed);  // relaxed: not yet shared
  *out = std::move(region);
  return Status::OK();
}

VmRegion::~VmRegion() {
  if (base_ != nullptr) {
    if (mmapped_) {
      ::munmap(base_, mapped_);
    } else {
      std::free(allocation_);
    }
  }
  if (fd_ >= 0) ::close(fd_);
}

Status VmRegion::Bump(uint64_t bytes, uint64_t limit, uint64_t* offset) {
  if (read_only_) {
    return Status::NotSupported("the region of " + Quoted(path_) +
                                " is read-only: it cannot hand out memory");
  }
  if (bytes == 0 || bytes % 4 != 0) {
    return Status::InvalidArgument("a region hands out a positive multiple of 4 bytes, not " +
                                   std::to_string(bytes));
  }
  limit = std::min(limit, capacity_);
  // relaxed: the CAS only divides the range among threads; the bytes handed
  // out are published by the caller's own release stores.
  uint64_t start = used_.load(std::memory_order_relaxed);
  for (;;) {
    // As a difference, so that a huge `bytes` cannot wrap around.
    if (start > limit || bytes > limit - start) {
      return Status::Full("the region cannot hand out " + std::to_string(bytes) +
                          " bytes: " + std::to_string(start) + " of its limit of " +
                          std::to_string(limit) + " are used; switch to a new one");
    }
    // Before the range is taken, so that a failure hands out nothing.
    if (explicit_commit_) {
      Status s = Commit(start + bytes);
      if (!s.ok()) return s;
    }
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kRegionCursor);
    if (used_.compare_exchange_weak(start, start + bytes, std::memory_order_relaxed)) {
      *offset = start;
      return Status::OK();
    }
  }
}

Status VmRegion::Commit(uint64_t end) {
  // Pages past a file's end must not be touched (SIGBUS), so a file's
  // region commits up to its last page, however its capacity falls.
  const uint64_t commit_limit = file_backed() ? RoundUp(capacity_, PageSize()) : mapped_;
  // relaxed: committed_ orders no memory (residency is the kernel's state);
  // the CAS only decides which thread makes which stretch resident.
  uint64_t claimed = committed_.load(std::memory_order_relaxed);
  while (claimed < end) {
    // end <= capacity_ <= commit_limit, so target >= end > claimed.
    const uint64_t target = std::min(RoundUp(end, kCommitStep), commit_limit);
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kRegionCommit);
    if (!committed_.compare_exchange_weak(claimed, target, std::memory_order_relaxed)) continue;
    Status s = Populate(claimed, target);
    if (!s.ok()) {
      // Give the stretch back unless a later one was claimed meanwhile
      // (the header's Limitations).
      uint64_t expected = target;
      committed_.compare_exchange_strong(expected, claimed, std::memory_order_relaxed);
    }
    return s;
  }
  return Status::OK();
}

Status VmRegion::Populate(uint64_t from, uint64_t to) {
  const int err = PopulateWrite(base_ + from, base_ + to);
  if (err == 0) return Status::OK();
  if (err == EINVAL) {
    // A kernel before 5.14: fault each page in writably by touching it.
    // Other threads may already be writing their data on these pages, so
    // the touch is an atomic add of 0, which changes no byte.
    for (uint64_t at = from; at < to; at += PageSize()) {
      __atomic_fetch_add(reinterpret_cast<uint32_t*>(base_ + at), 0u, __ATOMIC_RELAXED);
    }
    return Status::OK();
  }
  std::string message = "explicit commit could not make bytes [" + std::to_string(from) + ", " +
                        std::to_string(to) + ") of the region resident: " + ErrnoText(err);
  if (err == ENOMEM || !file_backed()) return Status::OutOfMemory(message);
  return Status::IOError(message + " (file " + Quoted(path_) + ")");
}

Status VmRegion::Truncate(uint64_t bytes) {
  if (read_only_) {
    return Status::NotSupported("the region of " + Quoted(path_) +
                                " is read-only: it cannot be truncated");
  }
  if (!file_backed()) return Status::OK();
  const uint64_t used_bytes = used();
  if (bytes < used_bytes || bytes > capacity_) {
    return Status::InvalidArgument(
        "the region of " + Quoted(path_) + " can be truncated to between what is used (" +
        std::to_string(used_bytes) + " bytes) and its capacity (" + std::to_string(capacity_) +
        "), not to " + std::to_string(bytes));
  }
  if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) {
    const int err = errno;
    return Status::IOError("could not truncate the region file " + Quoted(path_) + " to " +
                           std::to_string(bytes) + " bytes: " + ErrnoText(err));
  }
  capacity_ = bytes;
  return Status::OK();
}

Status VmRegion::Sync(uint64_t bytes) {
  if (!file_backed() || read_only_) return Status::OK();
  if (bytes > capacity_) {
    return Status::InvalidArgument("cannot sync " + std::to_string(bytes) +
                                   " bytes of the region of " + Quoted(path_) +
                                   ": its capacity is " + std::to_string(capacity_));
  }
  // Whole pages: the last one may be partly past `bytes`, never past the
  // mapping (which covers capacity_ rounded up to a page).
  if (bytes > 0 && ::msync(base_, RoundUp(bytes, PageSize()), MS_SYNC) != 0) {
    const int err = errno;
    return Status::IOError("could not write back the region file " + Quoted(path_) +
                           ": msync: " + ErrnoText(err));
  }
  if (::fsync(fd_) != 0) {
    const int err = errno;
    return Status::IOError("could not sync the region file " + Quoted(path_) +
                           ": fsync: " + ErrnoText(err));
  }
  return Status::OK();
}

}  // namespace memrep::memory
