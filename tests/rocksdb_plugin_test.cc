// The plugin's face to RocksDB: factory strings for every registered rep,
// options, OPTIONS files, comparator checks.
#include <gtest/gtest.h>
#include <rocksdb/comparator.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/utilities/options_util.h>
#include <rocksdb/write_buffer_manager.h>

#include <filesystem>
#include <fstream>

#include "comparator_probe.h"
#include "format/coding.h"
#include "memrep/auto.h"
#include "memrep/registry.h"
#include "memrep/rocksdb.h"
#include "memrep/sorted_hash.h"
#include "rep_factory.h"
#include "rocksdb_test_util.h"
#include "user_comparator.h"

namespace memrep::rocksdb_plugin {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using testing::OpenDb;

rdb::Status Create(const std::string& spec, std::shared_ptr<rdb::MemTableRepFactory>* out) {
  rdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  return rdb::MemTableRepFactory::CreateFromString(config, spec, out);
}

// The value of a memrep factory's option, as its options string writes it.
std::string OptionOf(const rdb::MemTableRepFactory& f, const std::string& name) {
  std::string value;
  EXPECT_TRUE(static_cast<const RepFactory&>(f).spec().Get(name, &value).ok()) << name;
  return value;
}

TEST(PluginFactory, EveryDocumentedSpellingWorks) {
  struct Case {
    const char* spec;
    const char* buckets;
  } cases[] = {
      {"memrep.SortedHash", "auto"},
      {"sorted_hash", "auto"},
      {"memrep.SortedHash:4096", "4096"},
      {"sorted_hash:100", "100"},
      {"speedb.HashSpdRepFactory", "auto"},
      {"speedb.HashSpdRepFactory:1000", "1000"},
      {"id=memrep.SortedHash; bucket_count=8192", "8192"},
      {"id=memrep.SortedHash; bucket_count=auto; max_runs=4; seal_threshold=64", "auto"},
  };
  for (const Case& c : cases) {
    std::shared_ptr<rdb::MemTableRepFactory> f;
    rdb::Status s = Create(c.spec, &f);
    ASSERT_TRUE(s.ok()) << c.spec << ": " << s.ToString();
    EXPECT_STREQ(f->Name(), "memrep.SortedHash") << c.spec;
    EXPECT_TRUE(f->IsInstanceOf("sorted_hash")) << c.spec << ": the nickname";
    EXPECT_EQ(OptionOf(*f, "bucket_count"), c.buckets) << c.spec;
  }
  std::shared_ptr<rdb::MemTableRepFactory> f;
  ASSERT_TRUE(Create("id=memrep.SortedHash; max_runs=4; seal_threshold=64", &f).ok());
  EXPECT_EQ(OptionOf(*f, "max_runs"), "4");
  EXPECT_EQ(OptionOf(*f, "seal_threshold"), "64");
}

// Every rep of the registry is a factory, by each of its names, with the
// capabilities its traits declare.
TEST(PluginFactory, EveryRegisteredRepIsAFactoryWithItsTraits) {
  for (const RepInfo& rep : ListReps()) {
    std::vector<std::string> names = rep.aliases;
    names.push_back(rep.name);
    for (const std::string& name : names) {
      std::shared_ptr<rdb::MemTableRepFactory> f;
      rdb::Status s = Create(name, &f);
      ASSERT_TRUE(s.ok()) << name << ": " << s.ToString();
      EXPECT_EQ(f->Name(), rep.name) << name;
      EXPECT_EQ(f->IsInsertConcurrentlySupported(), rep.traits.concurrent_insert) << name;
      EXPECT_EQ(f->CanHandleDuplicatedKey(), rep.traits.detects_duplicates()) << name;
    }
  }
}

TEST(PluginFactory, BadSpecsFailWithAClearMessage) {
  struct Case {
    const char* spec;
    const char* says;  // part of the message
  } cases[] = {
      {"memrep.SortedHash:-1", "bucket_count='-1' is not a non-negative decimal number"},
      {"memrep.SortedHash:99999999999999", "out of range"},
      {"speedb.HashSpdRepFactory:1099511627776", "bucket_count=1099511627776 is out of range"},
      {"id=memrep.SortedHash; bucket_count=lots", "not a non-negative decimal number"},
      {"id=memrep.SortedHash; bucket_count=-5", "not a non-negative decimal number"},
      {"id=memrep.SortedHash; bucket_count=-1", "not a non-negative decimal number"},
      {"id=memrep.SortedHash; max_runs=1", "max_runs=1 is out of range"},
      {"id=memrep.SortedHash; write_buffer_size=10", "write_buffer_size=10"},
      {"id=memrep.SortedHash; no_such_option=1", "option 'no_such_option'; known: "},
      {"memrep.SortedHash:many", "not a non-negative decimal number"},
  };
  for (const Case& c : cases) {
    std::shared_ptr<rdb::MemTableRepFactory> f;
    rdb::Status s = Create(c.spec, &f);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.spec << " gave " << s.ToString();
    EXPECT_NE(s.ToString().find(c.says), std::string::npos) << c.spec << " gave " << s.ToString();
  }
  // An OPTIONS file from a newer memrep may name an option this one does not
  // know: refused, unless the caller asks RocksDB to ignore unknown options.
  {
    rdb::ConfigOptions lenient;
    lenient.ignore_unknown_options = true;
    std::shared_ptr<rdb::MemTableRepFactory> f;
    rdb::Status s = rdb::MemTableRepFactory::CreateFromString(
        lenient, "id=memrep.SortedHash; max_runs=4; option_of_the_future=1", &f);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(OptionOf(*f, "max_runs"), "4");
  }
  // An unknown rep is RocksDB's own error.
  std::shared_ptr<rdb::MemTableRepFactory> f;
  EXPECT_FALSE(Create("memrep.NoSuchRep", &f).ok());
}

using testing::kCaseFolding;
using testing::kTimestampComparator;

class PluginDbTest : public ::testing::Test {
 protected:
  PluginDbTest() {
    path_ = std::filesystem::temp_directory_path() /
            ("memrep_plugin_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path_);
  }
  ~PluginDbTest() override { std::filesystem::remove_all(path_); }
  std::string path_;
};

TEST_F(PluginDbTest, OptionsFileRoundTrips) {
  rdb::Options options;
  options.create_if_missing = true;
  ASSERT_TRUE(
      Create("id=memrep.SortedHash; bucket_count=4096; max_runs=5", &options.memtable_factory)
          .ok());
  {
    std::unique_ptr<rdb::DB> db;
    ASSERT_TRUE(OpenDb(options, path_, &db).ok());
    ASSERT_TRUE(db->Put(rdb::WriteOptions(), "k", "v").ok());
  }
  rdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  rdb::DBOptions db_options;
  std::vector<rdb::ColumnFamilyDescriptor> cfs;
  rdb::Status s = rdb::LoadLatestOptions(config, path_, &db_options, &cfs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(cfs.size(), 1u);
  const auto& factory = cfs[0].options.memtable_factory;
  ASSERT_NE(factory, nullptr);
  EXPECT_STREQ(factory->Name(), "memrep.SortedHash");
  EXPECT_EQ(OptionOf(*factory, "bucket_count"), "4096");
  EXPECT_EQ(OptionOf(*factory, "max_runs"), "5");
  // And the loaded options open the database again.
  rdb::Options reopened(db_options, cfs[0].options);
  std::unique_ptr<rdb::DB> db;
  ASSERT_TRUE(OpenDb(reopened, path_, &db).ok());
  std::string v;
  ASSERT_TRUE(db->Get(rdb::ReadOptions(), "k", &v).ok());
  EXPECT_EQ(v, "v");
}

TEST_F(PluginDbTest, AutoChoosesPerMemtableLogsEachDecisionAndCountsThem) {
  rdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 256 << 10;
  // The prior's choices (learn=false): what is asserted must not depend on
  // this machine's timings (tests/rocksdb_auto_test.cc tests the learning).
  ASSERT_TRUE(Create("id=memrep.Auto; candidates=memrep.Trie,memrep.Vector,memrep.SortedHash; "
                     "background_weight_percent=0; learn=false",
                     &options.memtable_factory)
                  .ok());
  std::unique_ptr<rdb::DB> db;
  ASSERT_TRUE(OpenDb(options, path_, &db).ok());
  rdb::WriteOptions wo;
  wo.disableWAL = true;
  const std::string value(100, 'v');
  // Writes alone, then writes that each read the key back: the policy goes
  // from the start rep to the writer (the vector, when background work is
  // free), then to a reader (the trie).
  for (int phase = 0; phase < 2; ++phase) {
    for (int i = 0; i < 20000; ++i) {
      const std::string key = "key" + std::to_string(phase * 100000 + (i * 7919) % 20000);
      ASSERT_TRUE(db->Put(wo, key, value).ok());
      std::string v;
      if (phase == 1) {
        ASSERT_TRUE(db->Get(rdb::ReadOptions(), key, &v).ok());
      }
    }
  }
  AutoCounters c;
  ASSERT_TRUE(GetAutoCounters(*options.memtable_factory, &c).ok());
  EXPECT_GE(c.memtables, 10u);
  ASSERT_FALSE(c.recent.empty());
  EXPECT_EQ(c.recent.front().rep, "memrep.Trie") << "the first candidate starts";
  EXPECT_EQ(c.recent.back().rep, "memrep.Trie") << c.recent.back().reason;
  bool vector_seen = false;
  for (const AutoDecision& d : c.recent) vector_seen = vector_seen || d.rep == "memrep.Vector";
  EXPECT_TRUE(vector_seen);
  EXPECT_GE(c.switches, 2u);
  // Every key reads back after the switches.
  std::string v;
  ASSERT_TRUE(db->Get(rdb::ReadOptions(), "key" + std::to_string(7919 % 20000), &v).ok());
  EXPECT_EQ(v, value);
  db.reset();
  // One line per memtable in the LOG.
  std::ifstream log(path_ + "/LOG");
  std::string line;
  int lines = 0;
  while (std::getline(log, line)) lines += line.find("memrep.Auto: memtable ") != std::string::npos;
  EXPECT_GE(lines, static_cast<int>(c.memtables) - 1);
  // A factory of another rep has no decisions; a factory not memrep's is NotFound.
  std::shared_ptr<rdb::MemTableRepFactory> sorted_hash;
  ASSERT_TRUE(Create("memrep.SortedHash", &sorted_hash).ok());
  ASSERT_TRUE(GetAutoCounters(*sorted_hash, &c).ok());
  EXPECT_EQ(c.memtables, 0u);
  EXPECT_TRUE(GetAutoCounters(rdb::SkipListFactory(), &c).IsNotFound());
}

TEST_F(PluginDbTest, AWriteBufferManagerCountsTheEntries) {
  // RocksDB reports only its memtable arena's blocks to a WriteBufferManager
  // (db_write_buffer_size, cache charging): every rep's rows must be in that
  // arena for the manager to see them.
  int reps = 0;
  for (const RepInfo& rep : ListReps()) {
    if (rep.name.rfind("memrep.", 0) != 0) continue;  // the tests' own reps serve no rows
    SCOPED_TRACE(rep.name);
    ++reps;
    auto manager = std::make_shared<rdb::WriteBufferManager>(size_t{1} << 30);
    rdb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 16 << 20;
    options.write_buffer_manager = manager;
    ASSERT_TRUE(NewRepFactory(rep.name, &options.memtable_factory).ok());
    const std::string path = path_ + "_" + rep.name;
    std::filesystem::remove_all(path);
    std::unique_ptr<rdb::DB> db;
    ASSERT_TRUE(OpenDb(options, path, &db).ok());
    rdb::WriteOptions write;
    write.disableWAL = true;
    constexpr int kEntries = 20000;
    const std::string value(100, 'v');
    for (int i = 0; i < kEntries; ++i) {
      ASSERT_TRUE(db->Put(write, "key" + std::to_string(i), value).ok());
    }
    EXPECT_GE(manager->memory_usage(), size_t{kEntries} * value.size());
    EXPECT_GE(manager->mutable_memtable_memory_usage(), size_t{kEntries} * value.size());
    // Big values too (a row region's allocation of their own). The manager
    // sees the arena's blocks, which hold at least what was written.
    const std::string big(60000, 'b');
    for (int i = 0; i < 10; ++i) {
      ASSERT_TRUE(db->Put(write, "big" + std::to_string(i), big).ok());
    }
    EXPECT_GE(manager->memory_usage(), size_t{kEntries} * value.size() + 10 * big.size());
    db.reset();
    std::filesystem::remove_all(path);
  }
  EXPECT_GE(reps, 5) << "sorted hash, vector, trie, columnar, auto";
}

TEST(PluginFactory, ATrieTableConversionOrOneFileIsRefusedWhenTheFactoryIsMade) {
  // Inside RocksDB a rep serves rows, which a trie table file cannot hold:
  // refused when the factory is made, on every path a factory is made by.
  const std::pair<const char*, bool> cases[] = {
      {"id=memrep.Trie; convert_to_sst=kFileMmap; file=/tmp/memrep-never-made", true},
      {"id=memrep.Trie; file=/tmp/memrep-never-made", false},
  };
  for (const auto& [spec, not_supported] : cases) {
    std::shared_ptr<rdb::MemTableRepFactory> trie;
    for (const rdb::Status& s : {NewRepFactory(spec, &trie), Create(spec, &trie)}) {
      EXPECT_EQ(s.IsNotSupported(), not_supported) << spec << ": " << s.ToString();
      EXPECT_EQ(s.IsInvalidArgument(), !not_supported) << spec << ": " << s.ToString();
      EXPECT_NE(s.ToString().find(not_supported ? "adopt a memtable" : "use dir="),
                std::string::npos)
          << s.ToString();
    }
  }
}

using testing::TestKeyComparator;

TEST(ComparatorProbe, RecognisesTheBytewiseOrdersAndNothingElse) {
  EXPECT_EQ(ProbeOrder(TestKeyComparator(rdb::BytewiseComparator())), BytewiseComparator());
  EXPECT_EQ(ProbeOrder(TestKeyComparator(rdb::ReverseBytewiseComparator())),
            ReverseBytewiseComparator());
  EXPECT_EQ(ProbeOrder(TestKeyComparator(&kTimestampComparator)), nullptr);
  EXPECT_EQ(ProbeOrder(TestKeyComparator(&kCaseFolding)), nullptr);
  // A key comparator that is not RocksDB's MemTable's has no comparator
  // to read (a real memtable's is read: ColumnFamilyTest's comparator test).
  EXPECT_EQ(UserComparatorOf(TestKeyComparator(&kCaseFolding)), nullptr);
}

// OrderOf, the plugin's one way in: a key comparator of another kind is
// probed, and nothing is left owned.
TEST(ComparatorProbe, OrderOfProbesAKeyComparatorThatIsNotRocksDbs) {
  std::unique_ptr<UserKeyComparator> owned;
  EXPECT_EQ(OrderOf(TestKeyComparator(rdb::ReverseBytewiseComparator()), &owned),
            ReverseBytewiseComparator());
  EXPECT_EQ(OrderOf(TestKeyComparator(&kCaseFolding), &owned), nullptr);
  EXPECT_EQ(owned, nullptr);
}

}  // namespace
}  // namespace memrep::rocksdb_plugin
