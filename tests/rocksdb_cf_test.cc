// Column families on every path RocksDB makes memtables by: created at run
// time, their write buffer changed by SetOptions, recovered from the WAL,
// and with comparators a rep may not serve. Whatever the path, a new
// memtable is small (it must not ask for a flush before its first write),
// and a database never holds a column family it cannot open again.
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/options.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "memrep/registry.h"
#include "memrep/rocksdb.h"
#include "rocksdb_test_util.h"

namespace memrep::rocksdb_plugin {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

// The reps a user can name (memrep.*), and RocksDB's skip list beside them.
std::vector<std::string> RepsAndSkipList() {
  std::vector<std::string> reps = {"skip_list"};
  for (const RepInfo& rep : ListReps()) {
    if (rep.name.rfind("memrep.", 0) == 0) reps.push_back(rep.name);
  }
  return reps;
}

std::shared_ptr<rdb::MemTableRepFactory> FactoryOf(const std::string& rep) {
  std::shared_ptr<rdb::MemTableRepFactory> f;
  if (rep == "skip_list") return std::make_shared<rdb::SkipListFactory>();
  EXPECT_TRUE(NewRepFactory(rep, &f).ok()) << rep;
  return f;
}

class FlushCounter final : public rdb::EventListener {
 public:
  void OnFlushCompleted(rdb::DB*, const rdb::FlushJobInfo&) override { ++count; }
  std::atomic<int> count{0};
};

class ColumnFamilyTest : public ::testing::TestWithParam<std::string> {
 protected:
  ColumnFamilyTest() {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = (std::filesystem::temp_directory_path() /
             ("memrep_cf_" + std::to_string(::getpid()) + "_" + name))
                .string();
    std::filesystem::remove_all(path_);
  }
  ~ColumnFamilyTest() override {
    Close();
    std::filesystem::remove_all(path_);
  }

  rdb::Options BaseOptions() const {
    rdb::Options options;
    options.create_if_missing = true;
    options.memtable_factory = FactoryOf(GetParam());
    options.allow_concurrent_memtable_write = true;
    return options;
  }
  void Close() {
    for (rdb::ColumnFamilyHandle* h : handles_) {
      if (db_ != nullptr) {
        EXPECT_TRUE(db_->DestroyColumnFamilyHandle(h).ok());
      }
    }
    handles_.clear();
    delete db_;
    db_ = nullptr;
  }
  // Opens the database with every column family it has, each with `cf` but
  // for the comparators in `comparators` (by name).
  rdb::Status OpenAll(const rdb::Options& options,
                      const std::map<std::string, const rdb::Comparator*>& comparators = {}) {
    std::vector<std::string> names;
    rdb::Status s = rdb::DB::ListColumnFamilies(options, path_, &names);
    if (!s.ok()) names = {rdb::kDefaultColumnFamilyName};
    std::vector<rdb::ColumnFamilyDescriptor> cfs;
    for (const std::string& name : names) {
      rdb::ColumnFamilyOptions cf(options);
      if (auto it = comparators.find(name); it != comparators.end()) cf.comparator = it->second;
      cfs.emplace_back(name, cf);
    }
    std::unique_ptr<rdb::DB> db;
    s = testing::OpenDb(options, path_, cfs, &handles_, &db);
    db_ = db.release();
    return s;
  }
  uint64_t MemtableBytes(rdb::ColumnFamilyHandle* h) const {
    uint64_t size = 0;
    EXPECT_TRUE(db_->GetIntProperty(h, "rocksdb.cur-size-active-mem-table", &size));
    return size;
  }
  // Until no flush is pending or running (at most 30 s).
  void WaitForFlushes() const {
    for (int i = 0; i < 3000; ++i) {
      uint64_t pending = 0, running = 0;
      EXPECT_TRUE(db_->GetIntProperty("rocksdb.mem-table-flush-pending", &pending));
      EXPECT_TRUE(db_->GetIntProperty("rocksdb.num-running-flushes", &running));
      if (pending == 0 && running == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "flushes still pending after 30 s";
  }
  // The LOG's lines that say a memtable fell back to the skip list.
  int FallbackLines() const {
    std::ifstream log(path_ + "/LOG");
    int lines = 0;
    for (std::string line; std::getline(log, line);) {
      lines += line.find("uses RocksDB's skip list instead") != std::string::npos;
    }
    return lines;
  }

  std::string path_;
  rdb::DB* db_ = nullptr;
  std::vector<rdb::ColumnFamilyHandle*> handles_;
};

// The most an empty memtable may hold: 5% of its write buffer (RocksDB
// raises one below 64 KiB to 64 KiB).
uint64_t EmptyLimit(uint64_t write_buffer_size) {
  return std::max<uint64_t>(write_buffer_size, 64 << 10) / 20;
}

TEST_P(ColumnFamilyTest, ColumnFamiliesMadeAtRunTimeStartSmallAndHoldTheirData) {
  rdb::Options options = BaseOptions();
  options.write_buffer_size = 64 << 20;
  ASSERT_TRUE(OpenAll(options).ok());
  EXPECT_LE(MemtableBytes(handles_[0]), EmptyLimit(options.write_buffer_size));
  const std::string value(100, 'v');
  for (uint64_t size :
       {uint64_t{4} << 10, uint64_t{64} << 10, uint64_t{1} << 20, uint64_t{64} << 20}) {
    rdb::ColumnFamilyOptions cf(options);
    cf.write_buffer_size = size;
    rdb::ColumnFamilyHandle* h = nullptr;
    // Before memtables sized themselves from what RocksDB gives them, a
    // small write buffer made RocksDB abort here (db/memtable.cc asserts
    // that a new memtable does not want a flush yet).
    ASSERT_TRUE(db_->CreateColumnFamily(cf, "cf" + std::to_string(size), &h).ok()) << size;
    handles_.push_back(h);
    EXPECT_LE(MemtableBytes(h), EmptyLimit(size)) << size << "-byte write buffer";
    for (int i = 0; i < 2000; ++i) {
      ASSERT_TRUE(db_->Put(rdb::WriteOptions(), h, "key" + std::to_string(i), value).ok());
    }
    ASSERT_TRUE(db_->Flush(rdb::FlushOptions(), h).ok());
    EXPECT_LE(MemtableBytes(h), EmptyLimit(size)) << size << ", after a flush";
    for (int i = 0; i < 2000; i += 97) {
      std::string v;
      ASSERT_TRUE(db_->Get(rdb::ReadOptions(), h, "key" + std::to_string(i), &v).ok()) << i;
      EXPECT_EQ(v, value);
    }
  }
  // Several at once, and all of them again after a reopen (recovery).
  std::vector<rdb::ColumnFamilyHandle*> more;
  rdb::ColumnFamilyOptions small(options);
  small.write_buffer_size = 64 << 10;
  ASSERT_TRUE(db_->CreateColumnFamilies(small, {"m1", "m2"}, &more).ok());
  for (rdb::ColumnFamilyHandle* h : more) {
    handles_.push_back(h);
    EXPECT_LE(MemtableBytes(h), EmptyLimit(small.write_buffer_size));
    ASSERT_TRUE(db_->Put(rdb::WriteOptions(), h, "k", "v").ok());
  }
  Close();
  options.write_buffer_size = 64 << 10;
  ASSERT_TRUE(OpenAll(options).ok());
  ASSERT_EQ(handles_.size(), 7u);
  for (rdb::ColumnFamilyHandle* h : handles_) {
    EXPECT_LE(MemtableBytes(h), EmptyLimit(options.write_buffer_size) + 8192) << h->GetName();
  }
  std::string v;
  EXPECT_TRUE(db_->Get(rdb::ReadOptions(), handles_.back(), "k", &v).ok());
}

TEST_P(ColumnFamilyTest, ASmallerWriteBufferFromSetOptionsIsWhatTheNextMemtablesHold) {
  // SetOptions changes write_buffer_size but not the arena's block size
  // RocksDB derived from the first one (1 MiB here): a memtable cannot learn
  // its size from the arena either. (Below about 1.4 MiB, RocksDB 7.8's own
  // skip list then wants a flush when empty: its check counts the arena's
  // next block.)
  rdb::Options options = BaseOptions();
  options.write_buffer_size = 64 << 20;
  auto flushes = std::make_shared<FlushCounter>();
  options.listeners.push_back(flushes);
  ASSERT_TRUE(OpenAll(options).ok());
  const std::string value(100, 'v');
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(db_->Put(rdb::WriteOptions(), "a" + std::to_string(i), value).ok());
  }
  ASSERT_TRUE(db_->SetOptions({{"write_buffer_size", std::to_string(2 << 20)}}).ok());
  for (int i = 0; i < 40000; ++i) {
    ASSERT_TRUE(db_->Put(rdb::WriteOptions(), "b" + std::to_string(i), value).ok());
  }
  WaitForFlushes();
  // 40000 entries of about 130 bytes in 2 MiB memtables: a few flushes, and
  // not one every few rows (memtables that wanted a flush when nearly empty).
  EXPECT_GE(flushes->count.load(), 2);
  EXPECT_LE(flushes->count.load(), 8);
  for (int i = 0; i < 40000; i += 613) {
    std::string v;
    ASSERT_TRUE(db_->Get(rdb::ReadOptions(), "b" + std::to_string(i), &v).ok()) << i;
  }
  // And back up: the next memtables grow to the larger buffer.
  ASSERT_TRUE(db_->SetOptions({{"write_buffer_size", std::to_string(64 << 20)}}).ok());
  ASSERT_TRUE(db_->Flush(rdb::FlushOptions()).ok());
  const int before = flushes->count.load();
  for (int i = 0; i < 4000; ++i) {
    ASSERT_TRUE(db_->Put(rdb::WriteOptions(), "c" + std::to_string(i), value).ok());
  }
  EXPECT_EQ(flushes->count.load(), before) << "4000 entries fit one 64 MiB memtable";
}

TEST_P(ColumnFamilyTest, AComparatorARepCannotServeIsServedByTheSkipListOnEveryPath) {
  // RocksDB asks a memtable factory about a column family only when a
  // database opens: one made at run time could never be refused, so
  // nothing is refused anywhere, and a rep that cannot serve the comparator
  // leaves the memtable to RocksDB's skip list, saying so in the LOG.
  const std::string rep = GetParam();
  rdb::Options options = BaseOptions();
  ASSERT_TRUE(OpenAll(options).ok());
  const std::map<std::string, const rdb::Comparator*> comparators = {
      {"case_folding", &testing::kCaseFolding}, {"timestamps", &testing::kTimestampComparator}};
  for (const auto& [name, cmp] : comparators) {
    rdb::ColumnFamilyOptions cf(options);
    cf.comparator = cmp;
    rdb::ColumnFamilyHandle* h = nullptr;
    ASSERT_TRUE(db_->CreateColumnFamily(cf, name, &h).ok()) << name;
    handles_.push_back(h);
  }
  std::string ts(8, '\0');
  ts[0] = 5;
  ASSERT_TRUE(db_->Put(rdb::WriteOptions(), handles_[1], "Apple", "1").ok());
  ASSERT_TRUE(db_->Put(rdb::WriteOptions(), handles_[2], "pear", ts, "2").ok());
  Close();
  // The database opens again as it is, with the same memtables.
  ASSERT_TRUE(OpenAll(options, comparators).ok());
  std::string v;
  ASSERT_TRUE(db_->Get(rdb::ReadOptions(), handles_[1], "APPLE", &v).ok());
  EXPECT_EQ(v, "1");
  rdb::ReadOptions at;
  const rdb::Slice read_ts(ts);
  at.timestamp = &read_ts;
  ASSERT_TRUE(db_->Get(at, handles_[2], "pear", &v).ok());
  EXPECT_EQ(v, "2");
  ASSERT_TRUE(db_->Put(rdb::WriteOptions(), handles_[1], "apple", "3").ok());
  ASSERT_TRUE(db_->Get(rdb::ReadOptions(), handles_[1], "APPLE", &v).ok());
  EXPECT_EQ(v, "3");
  // Which reps serve what is their traits' business (docs/rocksdb.md): the
  // vector (and Auto, which then picks it) serves both; the others neither.
  const bool serves = rep == "skip_list" || rep == "memrep.Vector" || rep == "memrep.Auto";
  if (serves) {
    EXPECT_EQ(FallbackLines(), 0) << rep;
  } else {
    EXPECT_GE(FallbackLines(), 2) << rep << ": a LOG line for each comparator";
  }
}

TEST_P(ColumnFamilyTest, AComparatorIsOnlyAskedAboutKeysOfItsOwnFormat) {
  // A comparator made for one key format (here 8-byte integers) is never
  // handed a key the application did not write: not when the memtable is
  // made (the order is read from RocksDB's key comparator, not probed), not
  // on any write, read, scan or reopen. Its order is the one served.
  const std::string rep = GetParam();
  testing::FixedWidthComparator cmp;
  const std::map<std::string, const rdb::Comparator*> comparators = {{"integers", &cmp}};
  rdb::Options options = BaseOptions();
  ASSERT_TRUE(OpenAll(options).ok());
  rdb::ColumnFamilyOptions cf(options);
  cf.comparator = &cmp;
  rdb::ColumnFamilyHandle* h = nullptr;
  ASSERT_TRUE(db_->CreateColumnFamily(cf, "integers", &h).ok());
  handles_.push_back(h);
  const std::vector<uint64_t> keys = {300, 1, 1ull << 40, 256, 2, 70000};
  for (uint64_t k : keys) {
    ASSERT_TRUE(db_->Put(rdb::WriteOptions(), h, testing::FixedWidthComparator::Encode(k),
                         std::to_string(k))
                    .ok());
  }
  ASSERT_TRUE(db_->DeleteRange(rdb::WriteOptions(), h, testing::FixedWidthComparator::Encode(250),
                               testing::FixedWidthComparator::Encode(257))
                  .ok());
  const std::vector<uint64_t> expected = {1, 2, 300, 70000, 1ull << 40};
  auto scan = [&](rdb::ColumnFamilyHandle* cfh) {
    std::vector<uint64_t> seen;
    std::unique_ptr<rdb::Iterator> it(db_->NewIterator(rdb::ReadOptions(), cfh));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      seen.push_back(testing::FixedWidthComparator::Decode(it->key()));
    }
    EXPECT_TRUE(it->status().ok());
    return seen;
  };
  EXPECT_EQ(scan(h), expected) << rep;
  std::string v;
  ASSERT_TRUE(db_->Get(rdb::ReadOptions(), h, testing::FixedWidthComparator::Encode(300), &v).ok());
  EXPECT_EQ(v, "300");
  EXPECT_TRUE(
      db_->Get(rdb::ReadOptions(), h, testing::FixedWidthComparator::Encode(256), &v).IsNotFound());
  Close();
  ASSERT_TRUE(OpenAll(options, comparators).ok());
  EXPECT_EQ(scan(handles_[1]), expected) << rep << ", after reopening from the WAL";
  ASSERT_TRUE(db_->Flush(rdb::FlushOptions(), handles_[1]).ok());
  EXPECT_EQ(scan(handles_[1]), expected) << rep << ", after a flush";
  EXPECT_EQ(cmp.wrong_width.load(), 0u) << rep << ": keys of another length reached the comparator";
}

INSTANTIATE_TEST_SUITE_P(Reps, ColumnFamilyTest, ::testing::ValuesIn(RepsAndSkipList()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

}  // namespace
}  // namespace memrep::rocksdb_plugin
