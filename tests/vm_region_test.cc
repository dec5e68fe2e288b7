#include "memory/vm_region.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace memrep::memory {
namespace {

using HugePages = VmRegionOptions::HugePages;
constexpr uint64_t kMiB = uint64_t{1} << 20;

// A fresh directory under the test's temporary directory, removed with
// everything in it at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = ::testing::TempDir() + "/vm_region_test_XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
    EXPECT_FALSE(path_.empty()) << "mkdtemp failed: " << std::strerror(errno);
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::unique_ptr<VmRegion> OpenRegion(const VmRegionOptions& options) {
  std::unique_ptr<VmRegion> region;
  Status s = VmRegion::Open(options, &region);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return region;
}

VmRegionOptions Options(uint64_t capacity) {
  VmRegionOptions options;
  options.capacity = capacity;
  return options;
}

bool AllZero(const char* p, uint64_t bytes) {
  return std::all_of(p, p + bytes, [](char c) { return c == 0; });
}

// How many of the pages of [p, p + bytes) are resident (mincore).
uint64_t ResidentPages(const char* p, uint64_t bytes) {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in_core((bytes + page - 1) / page);
  if (::mincore(const_cast<char*>(p), bytes, in_core.data()) != 0) {
    ADD_FAILURE() << "mincore: " << std::strerror(errno);
    return 0;
  }
  return static_cast<uint64_t>(
      std::count_if(in_core.begin(), in_core.end(), [](unsigned char c) { return c & 1; }));
}

uint64_t FileSize(const std::string& path) {
  struct stat st;
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path << ": " << std::strerror(errno);
  return static_cast<uint64_t>(st.st_size);
}

// Bumps ranges of varied sizes and checks that each is 4-aligned, follows
// the one before, reads as zero and keeps what is written to it.
void CheckBumpsAreFreshAndDisjoint(VmRegion* region) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  uint64_t expected_offset = region->used();
  for (uint64_t bytes : {4, 8, 12, 100, 4096, 36, 65536, 4}) {
    uint64_t offset = ~uint64_t{0};
    Status s = region->Bump(bytes, &offset);
    ASSERT_TRUE(s.ok()) << bytes << ": " << s.ToString();
    EXPECT_EQ(offset % 4, 0u) << bytes;
    EXPECT_EQ(offset, expected_offset) << "bump pointer: each range follows the one before";
    expected_offset = offset + bytes;
    EXPECT_TRUE(AllZero(region->base() + offset, bytes)) << "fresh memory reads as zero";
    std::memset(region->base() + offset, static_cast<int>(ranges.size() + 1), bytes);
    ranges.emplace_back(offset, bytes);
  }
  EXPECT_EQ(region->used(), expected_offset);
  for (size_t i = 0; i < ranges.size(); ++i) {
    const char* p = region->base() + ranges[i].first;
    EXPECT_TRUE(
        std::all_of(p, p + ranges[i].second, [&](char c) { return c == static_cast<char>(i + 1); }))
        << "range " << i << " was overwritten";
  }
}

TEST(VmRegion, AnonymousBumpsAreAlignedDisjointZeroAndWritable) {
  auto region = OpenRegion(Options(16 * kMiB));
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->capacity(), 16 * kMiB);
  EXPECT_EQ(region->used(), 0u);
  EXPECT_FALSE(region->file_backed());
  EXPECT_FALSE(region->read_only());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(region->base()) % 4096, 0u);
  CheckBumpsAreFreshAndDisjoint(region.get());
  region->base()[region->capacity() - 1] = 'z';  // the whole capacity is mapped
  EXPECT_TRUE(region->Truncate(region->used()).ok()) << "nothing to do without a file";
  EXPECT_TRUE(region->Sync(region->used()).ok()) << "nothing to do without a file";
}

TEST(VmRegion, FullAtTheLimitOrTheCapacityHandsOutNothing) {
  auto region = OpenRegion(Options(4096));
  ASSERT_NE(region, nullptr);
  uint64_t offset = 0;
  ASSERT_TRUE(region->Bump(1000, &offset).ok());
  // A limit below the capacity keeps a reserve.
  Status s = region->Bump(2000, 2048, &offset);
  EXPECT_TRUE(s.IsFull()) << s.ToString();
  EXPECT_NE(s.message().find("switch to a new one"), std::string::npos) << s.message();
  EXPECT_EQ(region->used(), 1000u) << "a failed bump leaves used() as it was";
  ASSERT_TRUE(region->Bump(1048, 2048, &offset).ok()) << "exactly up to the limit fits";
  EXPECT_EQ(offset, 1000u);
  EXPECT_EQ(region->used(), 2048u);
  EXPECT_TRUE(region->Bump(4, 2048, &offset).IsFull());
  EXPECT_TRUE(region->Bump(4, 1024, &offset).IsFull()) << "a limit below what is used";
  EXPECT_EQ(region->used(), 2048u);
  // The reserve is still there for a bump up to the capacity.
  ASSERT_TRUE(region->Bump(2048, &offset).ok());
  EXPECT_EQ(region->used(), 4096u);
  EXPECT_TRUE(region->Bump(4, &offset).IsFull());
  EXPECT_TRUE(region->Bump(4, uint64_t{1} << 40, &offset).IsFull())
      << "a limit past the capacity counts as the capacity";
  EXPECT_EQ(region->used(), 4096u) << "used() never passes the capacity";
}

TEST(VmRegion, AHugeBumpIsFullRatherThanWrappingAround) {
  auto region = OpenRegion(Options(4096));
  ASSERT_NE(region, nullptr);
  uint64_t offset = 0;
  ASSERT_TRUE(region->Bump(8, &offset).ok());
  const uint64_t huge = ~uint64_t{0} - 3;  // a multiple of 4; 8 + huge wraps to 4
  EXPECT_TRUE(region->Bump(huge, &offset).IsFull());
  EXPECT_EQ(region->used(), 8u);
}

TEST(VmRegion, BumpsThatAreNotPositiveMultiplesOfFourAreRejected) {
  auto region = OpenRegion(Options(4096));
  ASSERT_NE(region, nullptr);
  uint64_t offset = 0;
  for (uint64_t bytes : {0, 1, 3, 6, 4097}) {
    Status s = region->Bump(bytes, &offset);
    EXPECT_TRUE(s.IsInvalidArgument()) << bytes << ": " << s.ToString();
  }
  EXPECT_EQ(region->used(), 0u);
}

// Threads bump ranges of varied sizes and fill each with their own byte:
// the ranges must tile [0, used()) exactly, each keeping its thread's bytes.
void CheckConcurrentBumps(const VmRegionOptions& options) {
  auto region = OpenRegion(options);
  ASSERT_NE(region, nullptr);
  constexpr int kThreads = 4, kBumps = 20000;
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kBumps; ++i) {
        const uint64_t bytes = 4 * (1 + (i * 37 + t) % 100);
        uint64_t offset;
        Status s = region->Bump(bytes, &offset);
        ASSERT_TRUE(s.ok()) << s.ToString();
        std::memset(region->base() + offset, 'a' + t, bytes);
        got[t].emplace_back(offset, bytes);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::vector<std::pair<uint64_t, uint64_t>> all;
  for (int t = 0; t < kThreads; ++t) {
    for (const auto& [offset, bytes] : got[t]) {
      const char* p = region->base() + offset;
      ASSERT_TRUE(std::all_of(p, p + bytes, [&](char c) { return c == 'a' + t; }))
          << "thread " << t << "'s range at " << offset << " was overwritten";
      all.emplace_back(offset, bytes);
    }
  }
  ASSERT_EQ(all.size(), size_t{kThreads} * kBumps);
  std::sort(all.begin(), all.end());
  uint64_t end = 0;
  for (const auto& [offset, bytes] : all) {
    ASSERT_EQ(offset, end) << "ranges overlap or leave a gap";
    end = offset + bytes;
  }
  EXPECT_EQ(end, region->used());
}

TEST(VmRegion, ConcurrentBumpsAreDisjointAndSumToUsed) { CheckConcurrentBumps(Options(64 * kMiB)); }

TEST(VmRegion, ConcurrentBumpsWithExplicitCommitAreDisjointAndSumToUsed) {
  VmRegionOptions options = Options(64 * kMiB);
  options.explicit_commit = true;
  CheckConcurrentBumps(options);
}

TEST(VmRegion, ConcurrentBumpsIntoAFullRegionNeverPassItsCapacity) {
  // Threads race past the capacity: each failing bump must leave used()
  // where it was, so what succeeded sums to used() <= capacity.
  constexpr uint64_t kCapacity = 1 * kMiB, kBytes = 12;
  auto region = OpenRegion(Options(kCapacity));
  ASSERT_NE(region, nullptr);
  std::vector<uint64_t> handed_out(4, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < handed_out.size(); ++t) {
    threads.emplace_back([&, t] {
      uint64_t offset;
      for (;;) {
        Status s = region->Bump(kBytes, &offset);
        if (!s.ok()) {
          EXPECT_TRUE(s.IsFull()) << s.ToString();
          EXPECT_LE(region->used(), kCapacity);
          return;
        }
        handed_out[t] += kBytes;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  uint64_t total = 0;
  for (uint64_t bytes : handed_out) total += bytes;
  EXPECT_EQ(total, region->used());
  EXPECT_EQ(region->used(), kCapacity / kBytes * kBytes) << "every bump that fit was made";
}

TEST(VmRegion, AllocatorBackedRegionWorksTheSame) {
  VmRegionOptions options = Options(40 * kMiB + 100);  // over glibc's mmap threshold
  options.use_vm = false;
  auto region = OpenRegion(options);
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->capacity(), 40 * kMiB + 100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(region->base()) % 4096, 0u) << "aligned to a page";
  CheckBumpsAreFreshAndDisjoint(region.get());
  uint64_t offset = 0;
  const uint64_t rest = region->capacity() - region->used();
  ASSERT_TRUE(region->Bump(rest, &offset).ok());
  EXPECT_TRUE(AllZero(region->base() + offset, rest)) << "all of it reads as zero";
  std::memset(region->base() + offset, 'x', rest);  // ASan: all inside the allocation
  EXPECT_TRUE(region->Bump(4, &offset).IsFull());
  EXPECT_EQ(region->used(), region->capacity());

  options.huge_pages = HugePages::kTransparent;
  auto transparent = OpenRegion(options);
  ASSERT_NE(transparent, nullptr);
  CheckBumpsAreFreshAndDisjoint(transparent.get());
}

TEST(VmRegion, ExplicitHugePagesNeedUseVm) {
  VmRegionOptions options = Options(4 * kMiB);
  options.use_vm = false;
  options.huge_pages = HugePages::kExplicit;
  std::unique_ptr<VmRegion> region;
  Status s = VmRegion::Open(options, &region);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("use_vm=true"), std::string::npos) << s.message();
  EXPECT_EQ(region, nullptr);
}

TEST(VmRegion, ExplicitCommitMakesTheStretchAheadResident) {
  constexpr uint64_t kStretch = 2 * kMiB;
  VmRegionOptions options = Options(64 * kMiB);
  auto lazy = OpenRegion(options);
  options.explicit_commit = true;
  auto committed = OpenRegion(options);
  ASSERT_NE(lazy, nullptr);
  ASSERT_NE(committed, nullptr);
  EXPECT_EQ(ResidentPages(committed->base(), kStretch), 0u) << "nothing resident before a bump";

  uint64_t offset = 0;
  ASSERT_TRUE(lazy->Bump(4096, &offset).ok());
  ASSERT_TRUE(committed->Bump(4096, &offset).ok());
  EXPECT_EQ(ResidentPages(lazy->base(), kStretch), 0u) << "without explicit commit, a bump "
                                                          "touches nothing";
  EXPECT_EQ(ResidentPages(committed->base(), kStretch), kStretch / 4096)
      << "the whole first stretch is resident";
  EXPECT_EQ(ResidentPages(committed->base() + kStretch, kStretch), 0u) << "but not the next one";

  // A bump from 4 KiB to 4 MiB + 4 KiB ends in the third stretch: the
  // second and third become resident, the fourth not.
  ASSERT_TRUE(committed->Bump(4 * kMiB, &offset).ok());
  EXPECT_EQ(ResidentPages(committed->base() + kStretch, 2 * kStretch), 2 * kStretch / 4096);
  EXPECT_EQ(ResidentPages(committed->base() + 3 * kStretch, kStretch), 0u);
  EXPECT_TRUE(AllZero(committed->base(), committed->used())) << "committed memory reads as zero";
  std::memset(committed->base() + offset, 'c', 4 * kMiB);
  EXPECT_EQ(committed->base()[offset + 4 * kMiB - 1], 'c');

  // Up to a capacity that is not a multiple of the stretch.
  options.capacity = 3 * kMiB + 4096;
  auto odd = OpenRegion(options);
  ASSERT_NE(odd, nullptr);
  ASSERT_TRUE(odd->Bump(odd->capacity(), &offset).ok());
  EXPECT_EQ(ResidentPages(odd->base(), odd->capacity()), odd->capacity() / 4096);
}

TEST(VmRegion, TransparentHugePagesOpen) {
  VmRegionOptions options = Options(64 * kMiB);
  options.huge_pages = HugePages::kTransparent;
  auto region = OpenRegion(options);
  ASSERT_NE(region, nullptr);
  CheckBumpsAreFreshAndDisjoint(region.get());
  options.explicit_commit = true;
  auto committed = OpenRegion(options);
  ASSERT_NE(committed, nullptr);
  CheckBumpsAreFreshAndDisjoint(committed.get());
}

TEST(VmRegion, ExplicitHugePagesOpenOrSayHowToReserveThem) {
  // The machine may have no huge pages reserved: then Open must say so.
  VmRegionOptions options = Options(3 * kMiB);  // mapped as two 2 MiB pages
  options.huge_pages = HugePages::kExplicit;
  std::unique_ptr<VmRegion> region;
  Status s = VmRegion::Open(options, &region);
  if (!s.ok()) {
    EXPECT_TRUE(s.IsOutOfMemory()) << s.ToString();
    EXPECT_NE(s.message().find("vm.nr_hugepages"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("transparent"), std::string::npos) << s.message();
    EXPECT_EQ(region, nullptr);
    return;  // the refusal is what this machine can show; it was checked above
  }
  EXPECT_EQ(region->capacity(), 3 * kMiB) << "the capacity stays as asked";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(region->base()) % (2 * kMiB), 0u);
  CheckBumpsAreFreshAndDisjoint(region.get());
  uint64_t offset = 0;
  ASSERT_TRUE(region->Bump(region->capacity() - region->used(), &offset).ok());
  region->base()[region->capacity() - 1] = 'h';
  EXPECT_TRUE(region->Bump(4, &offset).IsFull());
}

TEST(VmRegion, ZeroOrImpossibleCapacityIsRefused) {
  std::unique_ptr<VmRegion> region;
  Status s = VmRegion::Open(Options(0), &region);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = VmRegion::Open(Options(uint64_t{1} << 62), &region);
  EXPECT_TRUE(s.IsOutOfMemory()) << s.ToString();
  EXPECT_NE(s.message().find("lower its capacity"), std::string::npos) << s.message();
  EXPECT_EQ(region, nullptr);
}

TEST(VmRegion, FileBackedRegionKeepsWhatWasWrittenForAReader) {
  ScratchDir dir;
  const std::string path = dir.File("region");
  VmRegionOptions options = Options(1 * kMiB);
  options.path = path;
  options.use_vm = false;  // a path wins
  auto region = OpenRegion(options);
  ASSERT_NE(region, nullptr);
  EXPECT_TRUE(region->file_backed());
  EXPECT_FALSE(region->read_only());
  EXPECT_EQ(region->path(), path);
  EXPECT_EQ(FileSize(path), 1 * kMiB) << "sized to the capacity";

  std::string written;
  for (uint64_t bytes : {100, 1000, 4000, 8}) {
    uint64_t offset = 0;
    ASSERT_TRUE(region->Bump(bytes, &offset).ok());
    ASSERT_TRUE(AllZero(region->base() + offset, bytes));
    for (uint64_t i = 0; i < bytes; ++i) {
      region->base()[offset + i] = static_cast<char>('a' + (offset + i) % 26);
    }
    written.append(region->base() + offset, bytes);
  }
  const uint64_t used = region->used();
  ASSERT_EQ(used, written.size());

  Status s = region->Truncate(used - 4);
  EXPECT_TRUE(s.IsInvalidArgument()) << "below what is used: " << s.ToString();
  ASSERT_TRUE(region->Truncate(used).ok());
  EXPECT_EQ(FileSize(path), used);
  EXPECT_EQ(region->capacity(), used) << "the capacity follows the file";
  uint64_t offset = 0;
  EXPECT_TRUE(region->Bump(4, &offset).IsFull()) << "nothing is handed out past the file's end";
  EXPECT_TRUE(region->Sync(used).ok());
  EXPECT_TRUE(region->Sync(used + 1).IsInvalidArgument()) << "past the capacity";
  region.reset();
  EXPECT_EQ(FileSize(path), used) << "the file stays";

  std::unique_ptr<VmRegion> reader;
  s = VmRegion::OpenReadOnly(path, &reader);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(reader->read_only());
  EXPECT_TRUE(reader->file_backed());
  EXPECT_EQ(reader->used(), used);
  EXPECT_EQ(reader->capacity(), used);
  EXPECT_EQ(std::string(reader->base(), reader->used()), written);
  s = reader->Bump(4, &offset);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.message().find("read-only"), std::string::npos) << s.message();
  EXPECT_EQ(reader->used(), used);
  EXPECT_TRUE(reader->Truncate(used).IsNotSupported());
  EXPECT_TRUE(reader->Sync(used).ok());
}

TEST(VmRegion, FileBackedRegionWithExplicitCommitIsUsable) {
  ScratchDir dir;
  VmRegionOptions options = Options(5 * kMiB + 100);  // the last page is partly past the end
  options.path = dir.File("region");
  options.explicit_commit = true;
  auto region = OpenRegion(options);
  ASSERT_NE(region, nullptr);
  uint64_t offset = 0;
  ASSERT_TRUE(region->Bump(4096, &offset).ok());
  EXPECT_EQ(ResidentPages(region->base(), 2 * kMiB), 2 * kMiB / 4096);
  ASSERT_TRUE(region->Bump(region->capacity() - region->used(), &offset).ok())
      << "commits up to the file's last page, not past it (SIGBUS)";
  region->base()[region->capacity() - 1] = 'e';
  ASSERT_TRUE(region->Sync(region->used()).ok());
}

TEST(VmRegion, FileBackedRegionIsSparseUntilWritten) {
  ScratchDir dir;
  const std::string path = dir.File("sparse");
  VmRegionOptions options = Options(uint64_t{1} << 30);
  options.path = path;
  auto region = OpenRegion(options);
  ASSERT_NE(region, nullptr);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), uint64_t{1} << 30);
  EXPECT_LT(static_cast<uint64_t>(st.st_blocks) * 512, 1 * kMiB) << "a sparse file";
  uint64_t offset = 0;
  ASSERT_TRUE(region->Bump(4096, &offset).ok());
  std::memset(region->base() + offset, 's', 4096);
  ASSERT_TRUE(region->Sync(region->used()).ok());
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_GE(static_cast<uint64_t>(st.st_blocks) * 512, 4096u) << "the written page is stored";
  EXPECT_LT(static_cast<uint64_t>(st.st_blocks) * 512, 1 * kMiB) << "and little else";
}

TEST(VmRegion, AnExistingFileIsTruncated) {
  ScratchDir dir;
  const std::string path = dir.File("old");
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "old bytes", 9), 9);
    ::close(fd);
  }
  VmRegionOptions options = Options(4096);
  options.path = path;
  auto region = OpenRegion(options);
  ASSERT_NE(region, nullptr);
  EXPECT_TRUE(AllZero(region->base(), 4096)) << "the old content is gone";
}

TEST(VmRegion, AMissingDirectoryIsAnIOErrorNamingThePath) {
  ScratchDir dir;
  const std::string path = dir.File("no_such_directory/region");
  VmRegionOptions options = Options(4096);
  options.path = path;
  std::unique_ptr<VmRegion> region;
  Status s = VmRegion::Open(options, &region);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(std::strerror(ENOENT)), std::string::npos) << s.message();
  EXPECT_EQ(region, nullptr);

  s = VmRegion::OpenReadOnly(path, &region);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
}

TEST(VmRegion, HugePagesOnAFileAreRefusedBeforeTheFileIsTouched) {
  ScratchDir dir;
  for (HugePages huge_pages : {HugePages::kTransparent, HugePages::kExplicit}) {
    VmRegionOptions options = Options(4 * kMiB);
    options.path = dir.File("huge");
    options.huge_pages = huge_pages;
    std::unique_ptr<VmRegion> region;
    Status s = VmRegion::Open(options, &region);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.message().find(options.path), std::string::npos) << s.message();
    EXPECT_NE(::access(options.path.c_str(), F_OK), 0) << "no file was created";
  }
}

TEST(VmRegion, OpenReadOnlyRefusesAnEmptyFileOrADirectory) {
  ScratchDir dir;
  const std::string path = dir.File("empty");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::unique_ptr<VmRegion> region;
  Status s = VmRegion::OpenReadOnly(path, &region);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("empty"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  EXPECT_EQ(region, nullptr);

  s = VmRegion::OpenReadOnly(dir.File(""), &region);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("not a regular file"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace memrep::memory
