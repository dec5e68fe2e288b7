#include "memory/page_allocator.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdint>
#include <vector>

#include "test_util.h"

namespace memrep::memory {
namespace {

template <typename T>
using Array = std::vector<T, PageAllocator<T>>;

TEST(PageAllocator, AFreedBigArrayLeavesTheProcessAtOnce) {
  // Make malloc keep big freed blocks, as glibc does on its own once its
  // dynamic mmap threshold has risen (a sanitizer's allocator quarantines
  // them instead): an array through malloc would stay resident after it is
  // freed and fail this test; a mapped one leaves.
  constexpr size_t kBig = size_t{16} << 20;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  const size_t before = testing::ResidentBytes();
  ASSERT_GT(before, 0u);
  {
    Array<uint8_t> big(kBig, 7);  // every page touched
    EXPECT_GE(testing::ResidentBytes(), before + kBig * 3 / 4);
    EXPECT_EQ(big[kBig - 1], 7);
  }
  const size_t after = testing::ResidentBytes();
  mallopt(M_MMAP_THRESHOLD, 128 << 10);  // glibc's default again (now fixed)
  mallopt(M_TRIM_THRESHOLD, 128 << 10);
  EXPECT_LT(after, before + kBig / 4);
}

TEST(PageAllocator, ArraysGrowMoveAndFreeThroughEitherPath) {
  // Growing by push_back crosses the threshold: each reallocation frees the
  // old block by the path that allocated it (ASan checks the small ones).
  Array<uint64_t> a;
  for (uint64_t i = 0; i < 100000; ++i) a.push_back(i * 3);
  Array<uint64_t> b = std::move(a);
  Array<uint64_t> c(b.begin(), b.begin() + 10);
  ASSERT_EQ(b.size(), 100000u);
  for (uint64_t i = 0; i < b.size(); ++i) ASSERT_EQ(b[i], i * 3);
  EXPECT_EQ(c.back(), 27u);
}

}  // namespace
}  // namespace memrep::memory
