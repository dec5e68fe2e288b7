// The standalone face, used the way an engine would use it.
#include "memrep/memtable.h"

#include <gtest/gtest.h>

#include <thread>

#include "memrep/registry.h"
#include "memrep/vector.h"

namespace memrep {
namespace {

std::unique_ptr<MemTable> Open(MemTableOptions options = {}) {
  std::unique_ptr<MemTable> table;
  Status s = MemTable::Open(options, &table);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return table;
}

TEST(MemTable, PutGetDeleteAtSnapshots) {
  auto t = Open();
  ASSERT_TRUE(t->Put("apple", "red", 10).ok());
  ASSERT_TRUE(t->Put("apple", "green", 20).ok());
  ASSERT_TRUE(t->Delete("apple", 30).ok());
  std::string v;
  EXPECT_TRUE(t->Get("apple", 5, &v).IsNotFound());
  ASSERT_TRUE(t->Get("apple", 15, &v).ok());
  EXPECT_EQ(v, "red");
  ASSERT_TRUE(t->Get("apple", 29, &v).ok());
  EXPECT_EQ(v, "green");
  EXPECT_TRUE(t->Get("apple", 30, &v).IsNotFound());
  EXPECT_TRUE(t->Get("pear", kMaxSequenceNumber, &v).IsNotFound());
  EXPECT_EQ(t->NumEntries(), 3u);
}

TEST(MemTable, RefusesBadInputWithClearErrors) {
  auto t = Open();
  ASSERT_TRUE(t->Put("k", "v", 1).ok());
  Status s = t->Put("k", "other", 1);
  EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  s = t->Put("k", "v", kMaxSequenceNumber + 1);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("kMaxSequenceNumber"), std::string::npos);
  s = t->Add("k", 2, static_cast<ValueType>(0x42), "v");
  EXPECT_TRUE(s.IsInvalidArgument());
  std::string v;
  ASSERT_TRUE(t->Get("k", 10, &v).ok());
  EXPECT_EQ(v, "v") << "a refused write changes nothing";

  std::unique_ptr<MemTable> none;
  s = MemTable::Open("id=memrep.SortedHash; max_runs=0", &none);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("max_runs"), std::string::npos);
  EXPECT_EQ(none, nullptr);
  MemTableOptions big;
  big.rep = "id=memrep.Trie; mem_cap=64M";
  big.write_buffer_size = uint64_t{64} << 20;
  s = MemTable::Open(big, &none);
  EXPECT_TRUE(s.IsInvalidArgument()) << "a trie region must leave a quarter free";
  EXPECT_NE(s.message().find("raise mem_cap to at least"), std::string::npos) << s.ToString();
  EXPECT_EQ(none, nullptr);
  big.write_buffer_size = uint64_t{48} << 20;
  EXPECT_TRUE(MemTable::Open(big, &none).ok()) << "3/4 of mem_cap fits";
  none.reset();
  big.rep = "memrep.Vector";
  big.write_buffer_size = VectorOptions::kMaxWriteBufferSize + 1;
  s = MemTable::Open(big, &none);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("32-bit references"), std::string::npos) << s.ToString();
  EXPECT_EQ(none, nullptr);
  s = MemTable::Open("memrep.NoSuchRep", &none);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("memrep.SortedHash"), std::string::npos) << "lists the known reps";
  EXPECT_EQ(none, nullptr);
}

// MultiGet gives, key by key, what Get gives: values, deletions, merge
// operands, missing keys, keys longer than Get's stack buffer, repeats, at
// several snapshots; for every rep.
TEST(MemTable, MultiGetAnswersAsGetDoesForEveryRep) {
  const std::string long_key(1000, 'L');
  for (const RepInfo& info : ListReps()) {
    SCOPED_TRACE(info.name);
    MemTableOptions options;
    options.rep = info.name;
    auto t = Open(options);
    ASSERT_NE(t, nullptr);
    ASSERT_TRUE(t->Put("apple", "red", 10).ok());
    ASSERT_TRUE(t->Put("apple", "green", 20).ok());
    ASSERT_TRUE(t->Delete("apple", 30).ok());
    ASSERT_TRUE(t->Add("m", 5, ValueType::kMerge, "+1").ok());
    ASSERT_TRUE(t->Put(long_key, "long", 7).ok());
    for (int i = 0; i < 200; ++i) ASSERT_TRUE(t->Put("k" + std::to_string(i), "v", 40 + i).ok());
    const std::vector<std::string> names = {"apple", "pear", long_key, "m",  "k7",
                                            "apple", "k199", "k",      "zz", ""};
    const std::vector<std::string_view> keys(names.begin(), names.end());
    for (const SequenceNumber snapshot :
         {SequenceNumber{0}, SequenceNumber{15}, SequenceNumber{25}, SequenceNumber{47},
          kMaxSequenceNumber, kMaxSequenceNumber + 5}) {
      std::vector<std::string> values = {"stale"};
      std::vector<Status> statuses;
      ASSERT_TRUE(t->MultiGet(keys, snapshot, &values, &statuses).ok());
      ASSERT_EQ(values.size(), keys.size());
      ASSERT_EQ(statuses.size(), keys.size());
      for (size_t i = 0; i < keys.size(); ++i) {
        std::string value;
        const Status expected = t->Get(keys[i], snapshot, &value);
        EXPECT_EQ(statuses[i].code(), expected.code())
            << "key " << i << " at " << snapshot << ": " << statuses[i].ToString() << " vs "
            << expected.ToString();
        if (expected.ok()) {
          EXPECT_EQ(values[i], value) << "key " << i << " at " << snapshot;
        }
      }
    }
    std::string value;
    ASSERT_TRUE(t->Get(long_key, 7, &value).ok());
    EXPECT_EQ(value, "long");
    std::vector<std::string> values;
    std::vector<Status> statuses;
    ASSERT_TRUE(t->MultiGet({}, 9, &values, &statuses).ok());
    EXPECT_TRUE(values.empty());
    EXPECT_TRUE(statuses.empty());
  }
}

TEST(MemTable, MergeOperandsAreReadThroughIterators) {
  auto t = Open();
  ASSERT_TRUE(t->Add("counter", 1, ValueType::kMerge, "+1").ok());
  std::string v;
  EXPECT_TRUE(t->Get("counter", 5, &v).IsInvalidArgument());
  std::unique_ptr<MemTableIterator> it;
  ASSERT_TRUE(t->NewIterator(&it).ok());
  it->Seek("counter");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().type(), static_cast<uint8_t>(ValueType::kMerge));
  EXPECT_EQ(it->entry().value, "+1");
}

TEST(MemTable, WriteBatchUsesConsecutiveSequences) {
  auto t = Open();
  WriteBatch batch;
  ASSERT_TRUE(batch.Put("a", "1").ok());
  ASSERT_TRUE(batch.Put("b", "2").ok());
  ASSERT_TRUE(batch.Delete("a").ok());
  ASSERT_TRUE(t->Write(batch, 100).ok());
  std::string v;
  ASSERT_TRUE(t->Get("a", 100, &v).ok());
  EXPECT_EQ(v, "1");
  EXPECT_TRUE(t->Get("a", 102, &v).IsNotFound());
  ASSERT_TRUE(t->Get("b", 101, &v).ok());
  EXPECT_EQ(v, "2");

  WriteBatch clash;
  ASSERT_TRUE(clash.Put("c", "3").ok());
  ASSERT_TRUE(clash.Put("b", "again").ok());  // b@101 exists
  Status s = t->Write(clash, 100);
  EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  EXPECT_NE(s.message().find("batch record 1"), std::string::npos);
  ASSERT_TRUE(t->Get("c", 100, &v).ok()) << "records before the clash stay";

  WriteBatch too_far;
  ASSERT_TRUE(too_far.Put("x", "1").ok());
  ASSERT_TRUE(too_far.Put("y", "1").ok());
  EXPECT_TRUE(t->Write(too_far, kMaxSequenceNumber).IsInvalidArgument());
  EXPECT_TRUE(t->Get("x", kMaxSequenceNumber, &v).IsNotFound()) << "a refused batch adds nothing";
}

TEST(MemTable, IteratorSeeksByUserKeyAndSnapshot) {
  auto t = Open();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(t->Put("key" + std::to_string(i), "v", 10 + i).ok());
  ASSERT_TRUE(t->Put("key5", "newer", 50).ok());
  std::unique_ptr<MemTableIterator> it;
  ASSERT_TRUE(t->NewIterator(&it).ok());
  it->Seek("key5");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().sequence(), 50u);
  it->Seek("key5", 20);
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().sequence(), 15u);
  it->SeekForPrev("key55");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().user_key, "key5");
  EXPECT_EQ(it->entry().sequence(), 15u) << "the oldest record of the largest key <= target";
  it->Prev();
  EXPECT_EQ(it->entry().sequence(), 50u);
}

// Found by tests/fuzz/ops_fuzz (regressions/ops_fuzz/seek-above-max-sequence):
// a sequence above 2^56-1 wrapped in the seek key, so Seek("key5", 2^56)
// acted as Seek("key5", 0) and skipped every record of key5.
TEST(MemTable, SeeksAboveTheLargestSequenceReadAsTheLargest) {
  auto t = Open();
  ASSERT_TRUE(t->Put("key4", "v", 1).ok());
  ASSERT_TRUE(t->Put("key5", "v", 7).ok());
  ASSERT_TRUE(t->Put("key6", "v", 2).ok());
  std::unique_ptr<MemTableIterator> it;
  ASSERT_TRUE(t->NewIterator(&it).ok());
  for (SequenceNumber above :
       {kMaxSequenceNumber + 1, SequenceNumber{1} << 57, ~SequenceNumber{0}}) {
    it->Seek("key5", above);
    ASSERT_TRUE(it->Valid()) << above;
    EXPECT_EQ(it->entry().user_key, "key5") << above;
    EXPECT_EQ(it->entry().sequence(), 7u) << above;
    it->SeekForPrev("key5", above);
    ASSERT_TRUE(it->Valid()) << above;
    EXPECT_EQ(it->entry().user_key, "key4")
        << "key5's records are all after (key5, max): " << above;
    std::string v;
    EXPECT_TRUE(t->Get("key5", above, &v).ok()) << above;
  }
}

TEST(MemTable, FreezeThenDrainInOrder) {
  auto t = Open();
  for (int i = 99; i >= 0; --i) ASSERT_TRUE(t->Put(std::to_string(1000 + i), "v", i + 1).ok());
  EXPECT_TRUE(t->Drain([](const EntryView&) {}).IsInvalidArgument());
  ASSERT_TRUE(t->Freeze().ok());
  Status s = t->Put("late", "v", 1000);
  EXPECT_TRUE(s.IsFrozen()) << s.ToString();
  std::vector<std::string> keys;
  ASSERT_TRUE(t->Drain([&](const EntryView& e) { keys.emplace_back(e.user_key); }).ok());
  ASSERT_EQ(keys.size(), 100u);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_GT(t->MemoryUsage(), 0u);
}

TEST(MemTable, ConcurrentWritersAndReaders) {
  auto t = Open();
  constexpr int kThreads = 3, kPerThread = 5000;
  std::vector<std::thread> threads;
  for (int w = 0; w < kThreads; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kPerThread; ++i) {
        const SequenceNumber seq = 1 + static_cast<SequenceNumber>(i) * kThreads + w;
        ASSERT_TRUE(t->Put("w" + std::to_string(w) + "-" + std::to_string(i), "v", seq).ok());
        std::string v;
        ASSERT_TRUE(t->Get("w" + std::to_string(w) + "-" + std::to_string(i), seq, &v).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(t->NumEntries(), static_cast<uint64_t>(kThreads * kPerThread));
}

}  // namespace
}  // namespace memrep
