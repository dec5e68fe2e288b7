// Behaviour particular to the sorted hash rep: its runs, its background work
// and its memory accounting.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "concurrency/background_pool.h"
#include "memory/sharded_arena.h"
#include "runs/sorted_run.h"
#include "sorted_hash/node.h"
#include "sorted_hash/sorted_hash_rep.h"
#include "test_util.h"

namespace memrep::sorted_hash {
namespace {

using runs::SortedRun;
using testing::MakeEntry;
using testing::NumberKey;
using testing::ResidentBytes;

// A sorted hash rep on `arena`, built as the RocksDB face builds it (rows).
std::unique_ptr<SortedHashRep> Make(const SortedHashOptions& options, memory::Arena* arena,
                                    uint64_t write_buffer_size = 0) {
  RepContext context;
  context.allocator = arena;
  context.rows = true;
  context.write_buffer_size = write_buffer_size;
  std::unique_ptr<Rep> rep;
  Status s = SortedHashRep::Make(options, context, &rep);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return std::unique_ptr<SortedHashRep>(static_cast<SortedHashRep*>(rep.release()));
}

void DrainBackground() { concurrency::BackgroundPool::Shared().Drain(); }

void WaitForRuns(const SortedHashRep& rep, size_t runs) {
  for (int i = 0; i < 500 && rep.NumRuns() != runs; ++i) {
    DrainBackground();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST(SortedHash, FreezeSortsEverythingIntoOneRun) {
  memory::Arena arena;
  SortedHashOptions o;
  o.background_cut = 64;
  o.seal_threshold = 16;
  auto rep_owner = Make(o, &arena);
  SortedHashRep& rep = *rep_owner;
  for (int i = 0; i < 5000; ++i)
    ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i * 7919 % 5000), 1, 1, "v")));
  rep.Freeze();
  WaitForRuns(rep, 1);
  EXPECT_EQ(rep.NumRuns(), 1u);
  auto it = rep.NewIterator();
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ASSERT_EQ(it->entry().user_key, NumberKey(n));
    ++n;
  }
  EXPECT_EQ(n, 5000);
}

TEST(SortedHash, RunsStayBoundedWhileWritesContinue) {
  memory::Arena arena;
  SortedHashOptions o;
  o.background_cut = 32;
  o.seal_threshold = 8;
  o.max_runs = 4;
  auto rep_owner = Make(o, &arena);
  SortedHashRep& rep = *rep_owner;
  size_t most_runs = 0;
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i * 7919 % 20000), 1, 1, "v")));
    if (i % 50 == 0) {
      rep.NewIterator();  // seals tails of >= 8 entries into runs
      DrainBackground();
      most_runs = std::max(most_runs, rep.NumRuns());
    }
  }
  // After the worker's pass, at most max_runs remain, whatever the iterators sealed.
  EXPECT_LE(most_runs, 5u);
  EXPECT_GE(most_runs, 2u) << "the test should have produced several runs";
}

TEST(SortedHash, AnIdleRepBecomesOneRunWithoutFreeze) {
  memory::Arena arena;
  SortedHashOptions o;
  o.background_cut = 100;
  auto rep_owner = Make(o, &arena);
  SortedHashRep& rep = *rep_owner;
  for (int i = 0; i < 1050; ++i) ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i), 1, 1, "v")));
  rep.NewIterator();  // asks the worker to look; it finds the rep idle
  WaitForRuns(rep, 1);
  EXPECT_EQ(rep.NumRuns(), 1u);
  EXPECT_EQ(rep.ApproximateNumEntries(testing::InternalKey("", kMaxSequenceNumber),
                                      testing::InternalKey("z", 0)),
            1050u);
}

TEST(SortedHash, MemoryUsageChargesRunsInAdvanceAndNeverGrowsAfterFreeze) {
  memory::Arena arena;
  SortedHashOptions o;
  o.bucket_count = 4096;
  o.background_cut = 64;
  o.seal_threshold = 500;
  auto rep_owner = Make(o, &arena);
  SortedHashRep& rep = *rep_owner;
  constexpr size_t kBuckets = 4096 * sizeof(RowRef);
  EXPECT_EQ(rep.MemoryUsage(), kBuckets) << "no node yet";
  size_t most_run_bytes = 0;
  for (int i = 0; i < 3000; ++i) {
    ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i * 7919 % 3000), 1, 1, "v")));
    if (i % 100 == 0) rep.NewIterator()->SeekToFirst();
    most_run_bytes = std::max(most_run_bytes, rep.RunBytes());
    ASSERT_LE(rep.RunBytes(), rep.MemoryUsage() - kBuckets);
  }
  EXPECT_GT(most_run_bytes, 0u);
  // Each node: an 8-byte header and its entry, in chunks taken from the
  // arena (which counts them); the rep charges 8 bytes of chunk table each.
  const size_t entry_bytes = RowSize(NumberKey(0).size(), 1);
  EXPECT_GE(rep.NodeBytes(), 3000 * (sizeof(Node) + entry_bytes));
  EXPECT_GE(arena.MemoryUsage(), rep.NodeBytes());
  const size_t table_bytes =
      rep.NodeBytes() /
      memory::RowRegion::ChunkBytesFor(SortedHashOptions::kDefaultWriteBufferSize) * sizeof(char*);
  const size_t at_freeze = rep.MemoryUsage();
  EXPECT_EQ(
      at_freeze,
      table_bytes + kBuckets + 3000 * 2 * SortedRun::kMaxBytesPerEntry +
          3000 * 2 * (SortedRun::kBytesPerEntryWithPrefixes - SortedRun::kMaxBytesPerEntry) +
          500 * (3 * SortedRun::kBytesPerEntryWithPrefixes +
                 (concurrency::BackgroundPool::Shared().threads() + 1) * sizeof(runs::RunSlot)) +
          2 * sizeof(uint64_t) * (3000 * 5 / (4 * SortedRun::kTopStride)));
  rep.Freeze();
  for (int i = 0; i < 20 && rep.NumRuns() != 1; ++i) {
    rep.NewIterator()->SeekToLast();
    EXPECT_EQ(rep.MemoryUsage(), at_freeze);
    DrainBackground();
  }
  WaitForRuns(rep, 1);
  EXPECT_EQ(rep.MemoryUsage(), at_freeze);
  EXPECT_LE(rep.RunBytes(), at_freeze - kBuckets - table_bytes);
}

TEST(SortedHash, ALargeUnsortedTailIsChargedLikeARun) {
  // With no background cut, an iterator finds many unsorted entries at once:
  // they must become a run within the charge, not a bigger cached tail.
  memory::Arena arena;
  SortedHashOptions o;
  o.bucket_count = 4096;
  o.background_cut = SortedHashOptions::kMaxThreshold;
  o.seal_threshold = 500;
  auto rep_owner = Make(o, &arena);
  SortedHashRep& rep = *rep_owner;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 20000; ++i) {
      ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i * 7919 % 20000), round + 1, 1, "v")));
    }
    auto it = rep.NewIterator();
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    EXPECT_LE(rep.RunBytes(), rep.MemoryUsage() - 4096 * sizeof(void*)) << "round " << round;
  }
}

TEST(SortedHash, ARepositionedIteratorMovesToMergedRuns) {
  // An iterator whose view has two runs is seeked again after the background
  // worker merged them, with no insert in between: it must take the merged
  // set (one search instead of two) and let the old runs go.
  const size_t merged_bytes = 200 * SortedRun::kBytesPerEntryWithPrefixes;
  for (int attempt = 0; attempt < 20; ++attempt) {
    memory::Arena arena;
    SortedHashOptions o;
    o.background_cut = SortedHashOptions::kMaxThreshold;  // only iterators and idle checks cut
    o.seal_threshold = 16;
    auto rep_owner = Make(o, &arena);
    SortedHashRep& rep = *rep_owner;
    for (int i = 0; i < 200; i += 2)
      ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i), 1, 1, "v")));
    auto it = rep.NewIterator();
    it->SeekToFirst();  // a first run of 100
    for (int i = 1; i < 200; i += 2)
      ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i), 1, 1, "v")));
    it->SeekToFirst();  // a second run of 100, unless the worker already merged
    WaitForRuns(rep, 1);
    ASSERT_EQ(rep.NumRuns(), 1u);
    DrainBackground();
    // The view pins both old runs beside the merged one; retry the rare
    // schedule where the worker merged before the second SeekToFirst.
    if (rep.RunBytes() < 2 * merged_bytes) continue;
    it->Seek(testing::InternalKey(NumberKey(150), kMaxSequenceNumber));
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->entry().user_key, NumberKey(150));
    EXPECT_EQ(rep.RunBytes(), merged_bytes) << "the old runs are still pinned";
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next())
      ASSERT_EQ(it->entry().user_key, NumberKey(n++));
    EXPECT_EQ(n, 200);
    return;
  }
  FAIL() << "the worker merged before the iterator's second view in every attempt";
}

TEST(SortedHash, ApproximateNumEntriesCountsUnsortedEntries) {
  memory::Arena arena;
  SortedHashOptions o;
  o.background_cut = SortedHashOptions::kMaxThreshold;  // no background cut during the test
  auto rep_owner = Make(o, &arena);
  SortedHashRep& rep = *rep_owner;
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i), 1, 1, "v")));
  rep.NewIterator()->SeekToFirst();  // sorts the first 500 into a run
  for (int i = 500; i < 1000; ++i)
    ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i), 1, 1, "v")));
  EXPECT_EQ(rep.ApproximateNumEntries(testing::InternalKey(NumberKey(600), kMaxSequenceNumber),
                                      testing::InternalKey(NumberKey(800), kMaxSequenceNumber)),
            200u);
  EXPECT_EQ(rep.ApproximateNumEntries(testing::InternalKey(NumberKey(400), kMaxSequenceNumber),
                                      testing::InternalKey(NumberKey(700), kMaxSequenceNumber)),
            300u);
}

// Resident memory of this process, in bytes.
TEST(SortedHash, CreatingARepTouchesNoBucketMemory) {
  // Creation is cheap because the bucket array is a fresh anonymous mapping
  // whose zero pages stay unmapped until a bucket is used: 16 reps with 64 MiB of buckets
  // each must not make 1 GiB resident. (A generous bound: sanitizer runtimes
  // add shadow memory of their own.)
  memory::Arena arena;
  SortedHashOptions o;
  o.bucket_count = uint64_t{8} << 20;
  const size_t before = ResidentBytes();
  std::vector<std::unique_ptr<SortedHashRep>> reps;
  for (int i = 0; i < 16; ++i) reps.push_back(Make(o, &arena));
  const size_t grown = ResidentBytes() - before;
  EXPECT_EQ(reps[0]->MemoryUsage(), (size_t{8} << 20) * sizeof(RowRef)) << "reported in full";
  EXPECT_LT(grown, size_t{256} << 20) << "buckets must not be touched at creation";
}

TEST(SortedHash, DestroyingWhileBackgroundWorkIsQueuedIsSafe) {
  for (int round = 0; round < 50; ++round) {
    memory::Arena arena;
    SortedHashOptions o;
    o.background_cut = 8;
    o.bucket_count = 1024;
    auto rep = Make(o, &arena);
    for (int i = 0; i < 500; ++i)
      ASSERT_TRUE(rep->Insert(MakeEntry(rep.get(), NumberKey(i), 1, 1, "v")));
    rep->Freeze();
    rep.reset();  // tasks still queued for it must not touch the freed arena
  }
  DrainBackground();
}

}  // namespace
}  // namespace memrep::sorted_hash
