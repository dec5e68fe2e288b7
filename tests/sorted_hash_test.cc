// Behaviour particular to the sorted hash rep: its runs, its background work
// and its memory accounting.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "concurrency/background_pool.h"
#include "memory/arena.h"
#include "runs/run_point_hold.h"
#include "runs/sorted_run.h"
#include "sorted_hash/node.h"
#include "sorted_hash/sorted_hash_rep.h"
#include "test_util.h"

namespace memrep::sorted_hash {
namespace {

using runs::SortedRun;
using testing::MakeEntry;
using testing::NumberKey;

// A sorted hash rep on `arena`, built as the RocksDB face builds it (rows).
std::unique_ptr<SortedHashRep> Make(const SortedHashOptions& options, memory::Arena* arena,
                                    uint64_t write_buffer_size = 0) {
  RepContext context;
  context.allocator = arena;
  context.rows = true;
  context.write_buffer_size = write_buffer_size;
  return testing::MakeRepAs<SortedHashRep>(options, context);
}

void DrainBackground() { concurrency::BackgroundPool::Shared().Drain(); }

void WaitForRuns(const SortedHashRep& rep, size_t runs) {
  (void)testing::WaitUntil([&] {
    DrainBackground();
    return rep.NumRuns() == runs;
  });
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

TEST(SortedHash, MemoryUsageChargesRunsAsTheyAreBuiltAndIsConstantOnceWritesStop) {
  memory::Arena arena;
  SortedHashOptions o;
  o.bucket_count = 4096;
  o.background_cut = SortedHashOptions::kMaxThreshold;  // only iterators cut
  o.seal_threshold = 500;
  auto rep_owner = Make(o, &arena);
  SortedHashRep& rep = *rep_owner;
  const auto table_bytes = [&] { return rep.ChunkTableBytes(); };
  EXPECT_EQ(rep.MemoryUsage(), 0u) << "no node, no run: the buckets are the arena's";
  // Rows in no run are charged as the fenced run an idle cut makes of them
  // (a reference, a fence share, a byte for top index and rounding):
  // nothing more in advance.
  for (int i = 0; i < 3000; ++i)
    ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i * 7919 % 3000), 1, 1, "v")));
  const size_t unsorted = rep.MemoryUsage() - table_bytes();
  EXPECT_EQ(unsorted, 3000 * (SortedRun::kMaxBytesPerEntry + 1));
  // A reader seals the 3000 rows as a run that keeps its prefixes: the next
  // insert charges the run as it is.
  rep.NewIterator()->SeekToFirst();
  ASSERT_EQ(rep.NumRuns(), 1u);
  ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(3000), 1, 1, "v")));
  const size_t with_run = rep.MemoryUsage();
  EXPECT_GE(with_run, table_bytes() + rep.RunBytes());
  EXPECT_GT(with_run, table_bytes() + unsorted) << "prefixes cost more than the fenced estimate";
  // Once writes stop, nothing changes it: not readers, not Freeze, not the
  // background sort into one run.
  rep.NewIterator()->SeekToLast();
  EXPECT_EQ(rep.MemoryUsage(), with_run);
  rep.Freeze();
  WaitForRuns(rep, 1);
  DrainBackground();
  EXPECT_EQ(rep.MemoryUsage(), with_run);
  EXPECT_LE(rep.RunBytes(), with_run - table_bytes()) << "the one run fits the charge";
}

TEST(SortedHash, ALargeUnsortedTailIsChargedLikeARun) {
  // With no background cut, an iterator finds many unsorted entries at once:
  // they must become a run (charged at the next insert), not a bigger cached
  // tail.
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
    {
      auto it = rep.NewIterator();
      it->SeekToFirst();
      ASSERT_TRUE(it->Valid());
    }
    // A merge running now is scratch (its output beside its inputs): once
    // it is done, the runs left are within what the next insert charges.
    DrainBackground();
    ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(20000 + round), 1, 1, "v")));
    EXPECT_LE(rep.RunBytes(), rep.MemoryUsage()) << "round " << round;
  }
}

#if MEMREP_RUN_POINTS
TEST(SortedHash, ARepositionedIteratorMovesToMergedRuns) {
  // An iterator whose view has two runs is seeked again after the background
  // worker merged them, with no insert in between: it must take the merged
  // set (one search instead of two) and let the old runs go.
  // The two old runs keep their prefixes (100 rows each); the merged run
  // keeps them too (a merge while the index is busy) or fences only (an idle
  // one).
  const size_t old_bytes = 200 * SortedRun::kBytesPerEntryWithPrefixes;
  memory::Arena arena;
  SortedHashOptions o;
  o.background_cut = SortedHashOptions::kMaxThreshold;  // only iterators and idle checks cut
  o.seal_threshold = 16;
  // The worker is held before each step until both views are taken
  // (runs/run_points.h), so that it cannot merge the first run before the
  // second exists. (The rep's index is its only one in the process.)
  runs::RunPointHold hold(runs::RunPoint::kStrandStep, nullptr);
  auto rep_owner = Make(o, &arena);
  SortedHashRep& rep = *rep_owner;
  for (int i = 0; i < 200; i += 2)
    ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i), 1, 1, "v")));
  auto it = rep.NewIterator();
  it->SeekToFirst();  // a first run of 100
  for (int i = 1; i < 200; i += 2)
    ASSERT_TRUE(rep.Insert(MakeEntry(&rep, NumberKey(i), 1, 1, "v")));
  it->SeekToFirst();  // a second run of 100
  ASSERT_EQ(rep.NumRuns(), 2u);
  hold.Release();
  WaitForRuns(rep, 1);
  ASSERT_EQ(rep.NumRuns(), 1u);
  DrainBackground();
  // The view pins both old runs beside the merged one.
  ASSERT_GE(rep.RunBytes(), old_bytes + 200 * SortedRun::kMaxBytesPerEntry);
  it->Seek(testing::InternalKey(NumberKey(150), kMaxSequenceNumber));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().user_key, NumberKey(150));
  EXPECT_LE(rep.RunBytes(), old_bytes) << "the old runs are still pinned";
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ASSERT_EQ(it->entry().user_key, NumberKey(n++));
  EXPECT_EQ(n, 200);
  EXPECT_EQ(hold.timeouts(), 0u);
}
#endif

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

TEST(SortedHash, TheBucketsAreTakenFromTheAllocator) {
  // So that RocksDB's memtable accounting, and a WriteBufferManager, count
  // them; MemoryUsage does not count them twice.
  memory::Arena arena;
  SortedHashOptions o;
  o.bucket_count = 100000;  // not a power of two: honoured as it is
  const size_t before = arena.MemoryUsage();
  auto rep = Make(o, &arena, /*write_buffer_size=*/uint64_t{64} << 20);  // a known size
  EXPECT_EQ(rep->BucketBytes(), HashTable::BytesFor(100000, false));
  EXPECT_GE(arena.MemoryUsage() - before, rep->BucketBytes());
  EXPECT_EQ(rep->MemoryUsage(), 0u);
}

TEST(SortedHash, AHugeBucketArrayIsMappedAndChargedNotTakenFromTheAllocator) {
  // A bucket_count far beyond the write buffer's needs (as a fuzzer, or a
  // typo, gives) costs address space until buckets are used: the array is
  // mapped untouched and charged by MemoryUsage, not zeroed in the arena.
  memory::Arena arena;
  SortedHashOptions o;
  o.bucket_count = uint64_t{1} << 26;  // 512 MiB of buckets
  const size_t before_arena = arena.MemoryUsage();
  const size_t before_rss = testing::ResidentBytes();
  auto rep = Make(o, &arena, /*write_buffer_size=*/uint64_t{64} << 20);
  EXPECT_EQ(rep->BucketBytes(), HashTable::BytesFor(size_t{1} << 26, false));
  EXPECT_LT(arena.MemoryUsage() - before_arena, size_t{1} << 20);
  EXPECT_GE(rep->MemoryUsage(), rep->BucketBytes()) << "charged by the rep";
  EXPECT_LT(testing::ResidentBytes() - before_rss, size_t{128} << 20) << "not touched";
  ASSERT_TRUE(rep->Insert(MakeEntry(rep.get(), NumberKey(1), 1, 1, "v")));
  EXPECT_TRUE(rep->Contains(testing::InternalKey(NumberKey(1), 1)));
}

TEST(SortedHash, TheFilterTurnsAwayAbsentKeysAndNeverAPresentOne) {
  // Few buckets, many keys: every bucket's filter fills up, and a Get must
  // still find each key present and no key absent.
  memory::Arena arena;
  SortedHashOptions o;
  o.bucket_count = 7;
  auto rep = Make(o, &arena);
  for (int i = 0; i < 2000; i += 2)
    ASSERT_TRUE(rep->Insert(MakeEntry(rep.get(), NumberKey(i), 1, 1, "v")));
  for (int i = 0; i < 2000; ++i) {
    EXPECT_EQ(rep->Contains(testing::InternalKey(NumberKey(i), 1)), i % 2 == 0) << i;
  }
  // One key per bucket: most absent keys are turned away by the filter, and
  // every present one is still found.
  memory::Arena arena2;
  o.bucket_count = 1 << 16;
  auto sparse = Make(o, &arena2);
  for (int i = 0; i < 1000; ++i)
    ASSERT_TRUE(sparse->Insert(MakeEntry(sparse.get(), NumberKey(i), 1, 1, "v")));
  for (int i = 0; i < 2000; ++i) {
    EXPECT_EQ(sparse->Contains(testing::InternalKey(NumberKey(i), 1)), i < 1000) << i;
  }
}

TEST(SortedHash, ConcurrentVersionsOfFewKeysInFewBucketsStayGroupedAndOrdered) {
  // Many writers race to start the same keys' groups at the heads of a few
  // buckets and to link versions into them: every version must be found,
  // each key's versions together and newest first, and a duplicate refused.
  memory::Arena arena;
  SortedHashOptions o;
  o.bucket_count = 3;
  auto rep = Make(o, &arena);
  constexpr int kThreads = 4, kKeys = 60, kRounds = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        for (int k = 0; k < kKeys; ++k) {
          const int key = (k * 7 + t * 13) % kKeys;  // threads start on different keys
          const SequenceNumber seq = 1 + static_cast<SequenceNumber>(round * kThreads + t);
          KeyHandle h;
          char* row;
          const std::string user_key = NumberKey(key);
          ASSERT_TRUE(rep->Allocate(RowSize(user_key.size(), 1), &h, &row).ok());
          EncodeRow(row, EntryView::Of(user_key, seq, ValueType::kValue, "v"));
          ASSERT_TRUE(rep->InsertConcurrently(h));
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int key = 0; key < kKeys; ++key) {
    struct Seen {
      std::string key;
      std::vector<SequenceNumber> seqs;
    } seen{NumberKey(key), {}};
    rep->GetRows(testing::InternalKey(seen.key, kMaxSequenceNumber), &seen,
                 [](void* arg, const char* row) {
                   auto* s = static_cast<Seen*>(arg);
                   const EntryView e = DecodeRow(row);
                   EXPECT_EQ(e.user_key, s->key) << "a Get hands out its key's versions alone";
                   s->seqs.push_back(e.sequence());
                   return true;
                 });
    ASSERT_EQ(seen.seqs.size(), size_t{kThreads * kRounds}) << "key " << key;
    for (size_t i = 0; i < seen.seqs.size(); ++i) {
      EXPECT_EQ(seen.seqs[i], SequenceNumber(kThreads * kRounds - i)) << "key " << key;
    }
  }
  KeyHandle h = MakeEntry(rep.get(), NumberKey(5), 7, 1, "again");
  EXPECT_FALSE(rep->Insert(h)) << "key 5, sequence 7 is there already";
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
