#include "memory/row_region.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "memory/arena.h"

namespace memrep::memory {
namespace {

// A region on an arena, initialised.
struct TestRegion {
  explicit TestRegion(size_t header_bytes = 0, uint64_t max_bytes = RowRegion::kMaxBytes)
      : region(&arena, 4096, header_bytes, max_bytes) {
    EXPECT_TRUE(region.Init().ok());
  }
  RowRef Allocate(size_t bytes) {
    RowRef ref = 0;
    Status s = region.Allocate(bytes, &ref);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return ref;
  }
  Arena arena;
  RowRegion region;
};

// An allocator that fails from a given call on.
class FailingAllocator final : public Allocator {
 public:
  explicit FailingAllocator(int successes) : left_(successes) {}
  char* AllocateAligned(size_t bytes) noexcept override {
    return left_.fetch_sub(1) > 0 ? arena_.AllocateAligned(bytes) : nullptr;
  }

 private:
  Arena arena_;
  std::atomic<int> left_;
};

TEST(RowRegion, FourByteUnitsPackNodesWithAtMostThreeBytesOfPadding) {
  Arena arena;
  RowRegion region(&arena, 4096, 4, RowRegion::MaxBytes(4), 4);
  ASSERT_TRUE(region.Init().ok());
  std::vector<std::pair<RowRef, size_t>> nodes;
  char* previous_end = nullptr;
  for (size_t bytes : {1, 2, 3, 4, 5, 126, 127, 3000, 100000}) {
    RowRef ref = 0;
    ASSERT_TRUE(region.Allocate(bytes, &ref).ok());
    char* node = region.At(ref);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(node) % 4, 0u) << bytes;
    if (previous_end != nullptr && bytes < 1000) {
      // Consecutive small nodes of one thread are adjacent: padded to 4 bytes only.
      EXPECT_EQ(node, previous_end) << bytes;
    }
    previous_end = node + (4 + bytes + 3) / 4 * 4;
    std::memset(node, static_cast<int>(bytes & 0xff), 4 + bytes);
    nodes.emplace_back(ref, bytes);
  }
  for (const auto& [ref, bytes] : nodes) {
    const char* node = region.At(ref);
    for (size_t i = 0; i < 4 + bytes; ++i) {
      ASSERT_EQ(node[i], static_cast<char>(bytes & 0xff)) << bytes << " overwritten at " << i;
    }
  }
}

TEST(RowRegion, ChunkSizeIsAPowerOfTwoFromTheWriteBuffer) {
  EXPECT_EQ(RowRegion::ChunkBytesFor(uint64_t{256} << 20), 65536u);
  EXPECT_EQ(RowRegion::ChunkBytesFor(uint64_t{64} << 20), 65536u);
  EXPECT_EQ(RowRegion::ChunkBytesFor(uint64_t{20} << 20), 16384u) << "20 KiB rounds down";
  EXPECT_EQ(RowRegion::ChunkBytesFor(uint64_t{8} << 20), 8192u);
  EXPECT_EQ(RowRegion::ChunkBytesFor(uint64_t{1} << 20), 4096u) << "at least 4 KiB";
  EXPECT_EQ(RowRegion::ChunkBytesFor(4096), 4096u);
}

TEST(RowRegion, NodesAreAlignedWritableAndNeverNull) {
  TestRegion t(8);
  for (size_t bytes : {1, 8, 9, 100, 1000, 3000, 100000}) {
    const RowRef ref = t.Allocate(bytes);
    ASSERT_NE(ref, 0u) << bytes;
    char* node = t.region.At(ref);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(node) % RowRegion::kUnit, 0u) << bytes;
    EXPECT_EQ(t.region.Row(ref), node + 8) << "the row follows the rep's header";
    std::memset(node, 0xab, 8 + bytes);  // ASan: header and row inside the allocation
  }
}

TEST(RowRegion, ChunksComeFromTheAllocatorAndABigNodeTakesOneSlotOfItsOwn) {
  TestRegion t;
  constexpr RowRef kChunkUnits = 4096 / RowRegion::kUnit;
  EXPECT_EQ(t.region.ChunkBytes(), 0u);
  EXPECT_EQ(t.arena.MemoryUsage(), 0u) << "nothing taken before the first node";
  const RowRef a = t.Allocate(24);
  EXPECT_EQ(a, kChunkUnits) << "chunk 1, unit 0 (chunk 0 is never used)";
  EXPECT_EQ(t.region.ChunkBytes(), 4096u);
  EXPECT_GE(t.arena.MemoryUsage(), 4096u) << "the chunk is the allocator's memory";
  // Over a quarter chunk: an allocation of its own, in one slot however big.
  const RowRef big = t.Allocate(50000);
  EXPECT_EQ(big, 2 * kChunkUnits);
  EXPECT_EQ(t.region.ChunkBytes(), 4096u + 50000u);
  std::memset(t.region.At(big), 1, 50000);  // contiguous
  const RowRef b = t.Allocate(17);
  EXPECT_EQ(b, a + 3) << "the shard's chunk continues after a (24 bytes = 3 units)";
  EXPECT_EQ(t.region.At(b), t.region.At(a) + 24);
  // Fill the rest of the first chunk: the next small node starts a new one.
  while (t.Allocate(8) + 1 < 2 * kChunkUnits) {
  }
  EXPECT_EQ(t.Allocate(8), 3 * kChunkUnits) << "the slot after big's";
  EXPECT_EQ(t.region.TableBytes(), 3 * sizeof(char*)) << "one table slot per chunk";
}

TEST(RowRegion, ConcurrentAllocationsAreDisjoint) {
  // Threads allocate nodes of varied sizes and fill each with their own
  // bytes; overlapping nodes would overwrite each other.
  TestRegion t;
  constexpr int kThreads = 4, kNodes = 20000;
  std::vector<std::vector<std::pair<RowRef, size_t>>> got(kThreads);
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      for (int i = 0; i < kNodes; ++i) {
        const size_t bytes = 8 + (i * 37 + th) % 200;
        RowRef ref;
        ASSERT_TRUE(t.region.Allocate(bytes, &ref).ok());
        std::memset(t.region.At(ref), 'a' + th, bytes);
        got[th].emplace_back(ref, bytes);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  // By address (chunks sit wherever the allocator put them): each node ends
  // before the next begins.
  std::vector<std::pair<const char*, size_t>> all;
  for (int th = 0; th < kThreads; ++th) {
    for (const auto& [ref, bytes] : got[th]) {
      const char* p = t.region.At(ref);
      ASSERT_TRUE(std::all_of(p, p + bytes, [&](char c) { return c == 'a' + th; })) << th;
      all.emplace_back(p, bytes);
    }
  }
  std::sort(all.begin(), all.end());
  for (size_t i = 1; i < all.size(); ++i) {
    ASSERT_LE(all[i - 1].first + all[i - 1].second, all[i].first);
  }
  size_t used = 0;
  for (const auto& node : all) used += node.second;
  EXPECT_GE(t.region.ChunkBytes(), used);
}

TEST(RowRegion, AFullRegionSaysFullKeepsWhatItHoldsAndWarnsAtHalf) {
  TestRegion t(0, uint64_t{1} << 20);  // 256 slots of 4 KiB
  const RowRef first = t.Allocate(64);
  std::memset(t.region.At(first), 'x', 64);
  size_t nodes = 1;
  bool warned_before_full = false;
  for (;;) {
    RowRef ref;
    Status s = t.region.Allocate(1000, &ref);
    if (!s.ok()) {
      EXPECT_TRUE(s.IsFull()) << s.ToString();
      EXPECT_NE(s.message().find("switch to a new memtable"), std::string::npos);
      break;
    }
    if (t.region.NearlyFull()) warned_before_full = true;
    ++nodes;
  }
  EXPECT_TRUE(warned_before_full) << "NearlyFull turns true while room is left";
  EXPECT_TRUE(t.region.NearlyFull());
  // Chunk 0 is never used; each of the other 255 holds four 1000-byte nodes
  // (first's chunk too: 64 + 4000 bytes fit in 4096).
  EXPECT_EQ(nodes, 1 + 255u * 4);
  EXPECT_EQ(t.region.At(first)[63], 'x');
  RowRef ref;
  EXPECT_TRUE(t.region.Allocate(1000, &ref).IsFull()) << "full stays full";
  EXPECT_TRUE(t.region.Allocate(8, &ref).ok()) << "what still fits the last chunk is handed out";
}

TEST(RowRegion, AnAllocatorFailureIsOutOfMemoryAndChangesNothing) {
  FailingAllocator allocator(1);
  RowRegion region(&allocator, 4096, 0);
  ASSERT_TRUE(region.Init().ok());
  RowRef a;
  ASSERT_TRUE(region.Allocate(100, &a).ok());
  std::memset(region.At(a), 'a', 100);
  // The first chunk is full after 40 nodes of 100 bytes (104 with padding).
  Status s;
  RowRef ref;
  for (int i = 0; i < 100 && s.ok(); ++i) s = region.Allocate(100, &ref);
  EXPECT_TRUE(s.IsOutOfMemory()) << s.ToString();
  EXPECT_EQ(region.At(a)[99], 'a');
  EXPECT_EQ(region.ChunkBytes(), 4096u) << "the failed chunk is not counted";
}

TEST(RowRegion, GrownChunksStartAtAKibibyteAndFollowWhatTheRegionHolds) {
  // As the reps use it: a memtable of a few rows takes a kibibyte of rows
  // (a skip list's takes what its nodes need), a big one chunk_bytes chunks.
  TestRegion t;  // 4 KiB chunks at most
  RowRegion region(&t.arena, 65536, 8);
  region.GrowChunks();
  ASSERT_TRUE(region.Init().ok());
  RowRef ref;
  ASSERT_TRUE(region.Allocate(24, &ref).ok());
  EXPECT_EQ(region.ChunkBytes(), RowRegion::kMinChunkBytes);
  // A node too big for the chunk's size but not big: a chunk of its size.
  ASSERT_TRUE(region.Allocate(3000, &ref).ok());
  EXPECT_EQ(region.ChunkBytes(), RowRegion::kMinChunkBytes + 3008);
  std::memset(region.At(ref), 1, 3008);
  size_t chunks_before = region.TableBytes() / sizeof(char*);
  size_t bytes_before = region.ChunkBytes();
  // After 8 MiB of rows the chunks are 64 KiB: the region's size / 128.
  while (region.ChunkBytes() < (size_t{8} << 20)) ASSERT_TRUE(region.Allocate(100, &ref).ok());
  chunks_before = region.TableBytes() / sizeof(char*);
  bytes_before = region.ChunkBytes();
  ASSERT_TRUE(region.Allocate(100, &ref).ok());
  while (region.TableBytes() / sizeof(char*) == chunks_before) {
    ASSERT_TRUE(region.Allocate(100, &ref).ok());
  }
  EXPECT_EQ(region.ChunkBytes() - bytes_before, 65536u);
}

}  // namespace
}  // namespace memrep::memory
