#include "sorted_hash/node_region.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "util/arena.h"

namespace memrep::sorted_hash {
namespace {

TEST(NodeRegion, ChunkSizeIsAPowerOfTwoFromTheWriteBuffer) {
  EXPECT_EQ(NodeRegion::ChunkBytesFor(uint64_t{256} << 20), 65536u);
  EXPECT_EQ(NodeRegion::ChunkBytesFor(uint64_t{64} << 20), 65536u);
  EXPECT_EQ(NodeRegion::ChunkBytesFor(uint64_t{20} << 20), 16384u) << "20 KiB rounds down";
  EXPECT_EQ(NodeRegion::ChunkBytesFor(uint64_t{8} << 20), 8192u);
  EXPECT_EQ(NodeRegion::ChunkBytesFor(uint64_t{1} << 20), 4096u) << "at least 4 KiB";
  EXPECT_EQ(NodeRegion::ChunkBytesFor(4096), 4096u);
}

TEST(NodeRegion, NodesAreAlignedWritableAndNeverNull) {
  util::Arena arena;
  NodeRegion region(&arena, 4096);
  for (size_t bytes : {1, 8, 9, 100, 1000, 3000, 100000}) {
    const NodeRef ref = region.Allocate(bytes);
    ASSERT_NE(ref, 0u) << bytes;
    char* p = region.At(ref);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % NodeRegion::kUnit, 0u) << bytes;
    std::memset(p, 0xab, bytes);  // ASan: the whole node is inside the allocation
  }
}

TEST(NodeRegion, ChunksComeFromTheAllocatorAndBigNodesTakeTheirOwn) {
  util::Arena arena;
  NodeRegion region(&arena, 4096);
  constexpr NodeRef kChunkUnits = 4096 / NodeRegion::kUnit;
  EXPECT_EQ(region.ChunkBytes(), 0u);
  EXPECT_EQ(arena.MemoryUsage(), 0u) << "nothing taken before the first node";
  const NodeRef a = region.Allocate(24);
  EXPECT_EQ(a, kChunkUnits) << "chunk 1, unit 0 (chunk 0 is never used)";
  EXPECT_EQ(region.ChunkBytes(), 4096u);
  EXPECT_GE(arena.MemoryUsage(), 4096u) << "the chunk is the allocator's memory";
  const NodeRef big = region.Allocate(5000);  // over a quarter chunk: two chunks of its own
  EXPECT_EQ(big, 2 * kChunkUnits);
  EXPECT_EQ(region.ChunkBytes(), 4096u * 3);
  std::memset(region.At(big), 1, 5000);  // contiguous across its two chunks
  EXPECT_EQ(region.At(big + kChunkUnits), region.At(big) + 4096);
  const NodeRef b = region.Allocate(17);
  EXPECT_EQ(b, a + 3) << "the shard's chunk continues after a (24 bytes = 3 units)";
  EXPECT_EQ(region.At(b), region.At(a) + 24);
  // Fill the rest of the first chunk: the next small node starts a new one.
  while (region.Allocate(8) + 1 < 2 * kChunkUnits) {
  }
  EXPECT_EQ(region.Allocate(8), 4 * kChunkUnits) << "after big's two chunks";
  EXPECT_EQ(region.TableBytes(), 4 * sizeof(char*)) << "one table slot per chunk";
}

TEST(NodeRegion, ConcurrentAllocationsAreDisjoint) {
  // Threads allocate nodes of varied sizes and fill each with their own
  // bytes; overlapping nodes would overwrite each other.
  util::Arena arena;
  NodeRegion region(&arena, 4096);
  constexpr int kThreads = 4, kNodes = 20000;
  std::vector<std::vector<std::pair<NodeRef, size_t>>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kNodes; ++i) {
        const size_t bytes = 8 + (i * 37 + t) % 200;
        const NodeRef ref = region.Allocate(bytes);
        std::memset(region.At(ref), 'a' + t, bytes);
        got[t].emplace_back(ref, bytes);
      }
    });
  }
  for (auto& th : threads) th.join();
  // By address (chunks sit wherever the allocator put them): each node ends
  // before the next begins.
  std::vector<std::pair<const char*, size_t>> all;
  for (int t = 0; t < kThreads; ++t) {
    for (const auto& [ref, bytes] : got[t]) {
      const char* p = region.At(ref);
      ASSERT_TRUE(std::all_of(p, p + bytes, [&](char c) { return c == 'a' + t; })) << t;
      all.emplace_back(p, bytes);
    }
  }
  std::sort(all.begin(), all.end());
  for (size_t i = 1; i < all.size(); ++i) {
    ASSERT_LE(all[i - 1].first + all[i - 1].second, all[i].first);
  }
  size_t used = 0;
  for (const auto& node : all) used += node.second;
  EXPECT_GE(region.ChunkBytes(), used);
}

TEST(NodeRegion, AFullRegionThrowsBadAllocAndKeepsWhatItHolds) {
  util::Arena arena;
  NodeRegion region(&arena, 4096, uint64_t{1} << 20);
  const NodeRef first = region.Allocate(64);
  std::memset(region.At(first), 'x', 64);
  EXPECT_THROW(region.Allocate(size_t{2} << 20), std::bad_alloc) << "bigger than the region";
  size_t nodes = 0;
  try {
    for (;;) {
      region.Allocate(1000);
      ++nodes;
    }
  } catch (const std::bad_alloc&) {
  }
  // Chunk 0 is never used; each of the other 255 holds four 1000-byte nodes
  // (first's chunk too: 64 + 4000 bytes fit in 4096).
  EXPECT_EQ(nodes, 255u * 4);
  EXPECT_EQ(region.ChunkBytes(), (size_t{1} << 20) - 4096);
  EXPECT_EQ(region.At(first)[63], 'x');
}

}  // namespace
}  // namespace memrep::sorted_hash
