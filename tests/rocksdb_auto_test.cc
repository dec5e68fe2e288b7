// memrep.Auto in a RocksDB database: a history per column family, and what
// it learned kept across a reopen in its learned_file (a corrupt one is
// ignored with a LOG line). No test here asserts a choice: those depend on
// this machine's timings (tests/auto_learning_test.cc drives the policy with
// a fake clock).
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/options_util.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "memrep/auto.h"
#include "memrep/rocksdb.h"
#include "rocksdb_test_util.h"

namespace memrep::rocksdb_plugin {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

class AutoDbTest : public ::testing::Test {
 protected:
  AutoDbTest() {
    path_ = (std::filesystem::temp_directory_path() /
             ("memrep_auto_db_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::filesystem::remove_all(path_);
  }
  ~AutoDbTest() override { std::filesystem::remove_all(path_); }

  rdb::Options Options(const std::string& spec) {
    rdb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 256 << 10;
    EXPECT_TRUE(NewRepFactory(spec, &options.memtable_factory).ok()) << spec;
    return options;
  }
  // Enough Puts for about ten memtable switches; every key reads back.
  void Fill(rdb::DB* db, rdb::ColumnFamilyHandle* cf, int from) {
    rdb::WriteOptions wo;
    wo.disableWAL = true;
    const std::string value(100, 'v');
    for (int i = from; i < from + 20000; ++i) {
      ASSERT_TRUE(db->Put(wo, cf, "key" + std::to_string(i), value).ok());
    }
    std::string v;
    for (int i = from; i < from + 20000; i += 997) {
      ASSERT_TRUE(db->Get(rdb::ReadOptions(), cf, "key" + std::to_string(i), &v).ok()) << i;
      EXPECT_EQ(v, value);
    }
  }
  std::string Log() const {
    std::ifstream in(path_ + "/LOG");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::string path_;
};

TEST_F(AutoDbTest, EachColumnFamilyHasAHistoryOfItsOwn) {
  rdb::Options options = Options("memrep.Auto");
  const std::shared_ptr<rdb::MemTableRepFactory> factory = options.memtable_factory;
  std::unique_ptr<rdb::DB> db;
  ASSERT_TRUE(memrep::testing::OpenDb(options, path_, &db).ok());
  // A second column family with the same options: the same factory object.
  rdb::ColumnFamilyHandle* cf = nullptr;
  ASSERT_TRUE(db->CreateColumnFamily(options, "second", &cf).ok());
  Fill(db.get(), cf, 0);
  AutoCounters second, first;
  ASSERT_TRUE(GetAutoCounters(*factory, cf->GetID(), &second).ok());
  ASSERT_TRUE(GetAutoCounters(*factory, &first).ok());
  EXPECT_GE(second.memtables, 5u);
  EXPECT_EQ(second.recent.front().memtable, 1u) << "numbered in its own column family";
  EXPECT_EQ(first.memtables, 1u) << "the default column family's first memtable only";
  AutoCounters none;
  ASSERT_TRUE(GetAutoCounters(*factory, 12345, &none).ok());
  EXPECT_EQ(none.memtables, 0u);
  ASSERT_TRUE(db->DestroyColumnFamilyHandle(cf).ok());
}

TEST_F(AutoDbTest, TheLearnedFileKeepsWhatWasLearnedAcrossAReopen) {
  const std::string file = path_ + "/memrep-auto.learned";
  const std::string spec = "id=memrep.Auto; learned_file=" + file;
  {
    rdb::Options options = Options(spec);
    std::unique_ptr<rdb::DB> db;
    ASSERT_TRUE(memrep::testing::OpenDb(options, path_, &db).ok());
    Fill(db.get(), db->DefaultColumnFamily(), 0);
    AutoCounters c;
    ASSERT_TRUE(GetAutoCounters(*options.memtable_factory, &c).ok());
    EXPECT_NE(c.recent.front().reason.find("does not exist yet"), std::string::npos)
        << c.recent.front().reason;
    ASSERT_TRUE(db->Close().ok());
  }  // the factory, and its lineages, end here: the file is written
  ASSERT_TRUE(std::filesystem::exists(file));
  // Reopened from its OPTIONS file (which names the learned_file), as a new
  // process would.
  rdb::ConfigOptions config;
  rdb::DBOptions db_options;
  std::vector<rdb::ColumnFamilyDescriptor> cfs;
  ASSERT_TRUE(rdb::LoadLatestOptions(config, path_, &db_options, &cfs).ok());
  ASSERT_EQ(cfs.size(), 1u);
  rdb::Options options(db_options, cfs[0].options);
  std::unique_ptr<rdb::DB> db;
  ASSERT_TRUE(memrep::testing::OpenDb(options, path_, &db).ok());
  AutoCounters c;
  ASSERT_TRUE(GetAutoCounters(*options.memtable_factory, &c).ok());
  ASSERT_FALSE(c.recent.empty());
  const std::string& reason = c.recent.front().reason;
  EXPECT_NE(reason.find("learned_file " + file + ": restored "), std::string::npos) << reason;
  EXPECT_NE(reason.find("settled on memrep."), std::string::npos) << reason;
  EXPECT_NE(Log().find(": restored "), std::string::npos) << "the LOG says so";
  Fill(db.get(), db->DefaultColumnFamily(), 100000);
}

TEST_F(AutoDbTest, ACorruptLearnedFileIsIgnoredWithALogLine) {
  const std::string file = path_ + "/memrep-auto.learned";
  std::filesystem::create_directories(path_);
  std::ofstream(file) << "memrep.Auto learned 1\nmachine x\ncost 0 memrep.Trie insert zz 1\n";
  rdb::Options options = Options("id=memrep.Auto; learned_file=" + file);
  std::unique_ptr<rdb::DB> db;
  ASSERT_TRUE(memrep::testing::OpenDb(options, path_, &db).ok()) << "never a failure";
  AutoCounters c;
  ASSERT_TRUE(GetAutoCounters(*options.memtable_factory, &c).ok());
  EXPECT_NE(c.recent.front().reason.find("is corrupt"), std::string::npos)
      << c.recent.front().reason;
  EXPECT_NE(Log().find("memrep-auto.learned is corrupt (a bad cost line"), std::string::npos);
  Fill(db.get(), db->DefaultColumnFamily(), 0);
}

}  // namespace
}  // namespace memrep::rocksdb_plugin
