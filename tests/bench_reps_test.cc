// Every rep memrep_bench drives — RocksDB's skip_list, vector, hash_skiplist,
// hash_linkedlist and memrep's sorted_hash — runs correctly on the allocator
// shim, the key comparator and the lookup keys of the bench: inserts, Gets
// with RocksDB's callback protocol, ordered iteration, seeks.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "entry_codec.h"
#include "key_generator.h"
#include "reps.h"
#include "workload_ops.h"

namespace memrep::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

class BenchRepTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    RepConfig config;
    config.bucket_count = 1024;
    config.arena_block_size = 64 * 1024;
    ASSERT_TRUE(RepFactory::Make(GetParam(), config, 1 << 20, &factory_).ok());
    ASSERT_TRUE(factory_->NewRep(&rep_).ok());
  }

  const KeyCodec keys_{16};
  const ValuePool values_{32, 9};
  std::unique_ptr<RepFactory> factory_;
  std::unique_ptr<BenchRep> rep_;
};

// Everything a Get visits for a key, until the user key changes.
struct Visit {
  const KeyCodec* keys;
  uint64_t key_number;
  std::vector<SequenceNumber> seqs;
};

bool CollectVersions(void* arg, const char* entry) {
  auto* visit = static_cast<Visit*>(arg);
  const DecodedEntry e = DecodeBenchEntry(entry, *visit->keys);
  if (!e.ours || e.key_number != visit->key_number) return false;
  visit->seqs.push_back(e.seq);
  return true;  // as RocksDB does for merge operands: keep going
}

TEST_P(BenchRepTest, InsertGetIterateInOrder) {
  // 300 keys (even numbers), versions 1..3 each, inserted in a random order.
  constexpr uint64_t kKeys = 300, kVersions = 3;
  std::vector<std::pair<uint64_t, SequenceNumber>> puts;
  for (uint64_t k = 0; k < kKeys; ++k) {
    for (uint64_t v = 0; v < kVersions; ++v) puts.emplace_back(2 * k, 1 + k + v * kKeys);
  }
  Random64 rng(5);
  for (size_t i = puts.size(); i > 1; --i) std::swap(puts[i - 1], puts[rng.Uniform(i)]);
  Inserter inserter(rep_->rep(), keys_, values_, /*concurrent=*/false);
  for (auto [key, seq] : puts) ASSERT_TRUE(inserter.Put(key, seq));

  // Get: the newest version first, then the older ones, in order.
  PointReader reader(rep_->rep(), keys_, values_);
  LookupTarget target(keys_);
  for (uint64_t k = 0; k < kKeys; ++k) {
    const GetResult got = reader.Get(2 * k);
    ASSERT_TRUE(got.found) << GetParam() << " key " << 2 * k;
    EXPECT_EQ(got.seq, 1 + k + (kVersions - 1) * kKeys);
    EXPECT_TRUE(got.value_ok);
    EXPECT_FALSE(reader.Get(2 * k + 1).found) << "absent key " << 2 * k + 1;

    // At a snapshot between the versions: the versions at or below it.
    Visit visit{&keys_, 2 * k, {}};
    target.Set(2 * k, 1 + k + kKeys);
    rep_->rep().Get(target.lookup_key(), &visit, &CollectVersions);
    EXPECT_EQ(visit.seqs, (std::vector<SequenceNumber>{1 + k + kKeys, 1 + k})) << 2 * k;
  }

  // Iteration: every version, in internal-key order.
  uint64_t count = 0;
  ASSERT_TRUE(ScanInOrder(rep_->rep(), keys_, [](const DecodedEntry&) { return Status::OK(); },
                          &count)
                  .ok());
  EXPECT_EQ(count, kKeys * kVersions);

  // Seek to an absent key lands on the next present one, newest version first.
  std::unique_ptr<rdb::MemTableRep::Iterator> it(rep_->rep().GetIterator(nullptr));
  target.Set(101);
  it->Seek(target.internal_key(), target.memtable_key());
  ASSERT_TRUE(it->Valid());
  DecodedEntry e = DecodeBenchEntry(it->key(), keys_);
  EXPECT_EQ(e.key_number, 102u);
  EXPECT_EQ(e.seq, 1 + 51 + 2 * kKeys);
  it->Next();
  EXPECT_EQ(DecodeBenchEntry(it->key(), keys_).seq, 1 + 51 + kKeys);
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(DecodeBenchEntry(it->key(), keys_).key_number, 2 * (kKeys - 1));

  EXPECT_GE(rep_->MemoryBytes(), kKeys * kVersions * EncodedEntrySize(16, 32));
  EXPECT_GE(rep_->Destroy(), 0);
}

// The reps whose factories say IsInsertConcurrentlySupported() and
// CanHandleDuplicatedKey(): skip_list and sorted_hash.
class ConcurrentRepTest : public BenchRepTest {};

TEST_P(ConcurrentRepTest, ConcurrentInserts) {
  ASSERT_TRUE(factory_->concurrent_inserts());
  constexpr uint64_t kPerThread = 2000;
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      Inserter inserter(rep_->rep(), keys_, values_, /*concurrent=*/true);
      for (uint64_t i = 0; i < kPerThread; ++i) {
        const uint64_t index = 2 * i + t;  // the threads interleave in key order
        ASSERT_TRUE(inserter.Put(2 * index, index + 1));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  uint64_t count = 0, expected = 0;
  Status s = ScanInOrder(
      rep_->rep(), keys_,
      [&](const DecodedEntry& e) {
        if (e.key_number != 2 * expected || e.seq != expected + 1) {
          return Status::InvalidArgument("wrong entry");
        }
        ++expected;
        return Status::OK();
      },
      &count);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(count, 2 * kPerThread);
}

TEST_P(ConcurrentRepTest, DuplicatesAreRefused) {
  Inserter inserter(rep_->rep(), keys_, values_, /*concurrent=*/false);
  EXPECT_TRUE(inserter.Put(10, 3));
  EXPECT_FALSE(inserter.Put(10, 3));
  EXPECT_TRUE(inserter.Put(10, 4));
}

INSTANTIATE_TEST_SUITE_P(EveryRep, BenchRepTest, ::testing::ValuesIn(KnownReps()),
                         [](const auto& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(ConcurrentReps, ConcurrentRepTest,
                         ::testing::Values("skip_list", "sorted_hash"),
                         [](const auto& info) { return info.param; });

TEST(BenchRepCatalogue, NamesAndAliases) {
  EXPECT_EQ(CanonicalRepName("skiplist"), "skip_list");
  EXPECT_EQ(CanonicalRepName("prefix_hash"), "hash_skiplist");
  EXPECT_EQ(CanonicalRepName("hashlinklist"), "hash_linkedlist");
  EXPECT_EQ(CanonicalRepName("memrep.SortedHash"), "sorted_hash");
  EXPECT_EQ(CanonicalRepName("btree"), "");
  std::unique_ptr<RepFactory> f;
  EXPECT_TRUE(RepFactory::Make("btree", RepConfig(), 1 << 20, &f).IsInvalidArgument());
}

TEST(BenchRepCatalogue, SortedHashOptionsAreCheckedAndApplied) {
  RepConfig config;
  std::unique_ptr<RepFactory> f;
  config.sorted_hash_options = "bucket_count=4096; max_runs=4";
  ASSERT_TRUE(RepFactory::Make("sorted_hash", config, 1 << 20, &f).ok());
  EXPECT_NE(f->description().find("bucket_count=4096"), std::string::npos) << f->description();
  EXPECT_NE(f->description().find("max_runs=4"), std::string::npos);
  // write_buffer_size follows what the run will hold, unless given.
  EXPECT_NE(f->description().find("write_buffer_size=1048576"), std::string::npos);
  for (const char* bad : {"max_runs=1", "no_such=1", "bucket_count", "bucket_count=lots"}) {
    config.sorted_hash_options = bad;
    Status s = RepFactory::Make("sorted_hash", config, 1 << 20, &f);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_NE(s.message().find("sorted_hash_options"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace memrep::bench
