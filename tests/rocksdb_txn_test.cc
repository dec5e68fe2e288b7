// Write-prepared transactions on every registered rep: RocksDB gives a whole
// batch one sequence there, so a batch that writes a key twice repeats a
// (user key, sequence), which the rep must refuse for RocksDB to split the
// batch (RepTraits::duplicates). A rep that finds RocksDB's duplicates must
// serve such batches correctly, through commit, flush and recovery from the
// WAL; a rep that finds none must be refused by RocksDB at open, with
// RocksDB's message.
#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "memrep/rocksdb.h"
#include "registry/registry.h"

namespace {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;

class WritePreparedTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("memrep_txn_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    for (size_t i = fs::temp_directory_path().string().size() + 1; i < dir_.size(); ++i) {
      if (dir_[i] == '/') dir_[i] = '_';  // a parameterized test's name has one
    }
    fs::remove_all(dir_);
    std::shared_ptr<rdb::MemTableRepFactory> factory;
    rdb::ConfigOptions config;
    ASSERT_TRUE(rdb::MemTableRepFactory::CreateFromString(config, GetParam(), &factory).ok());
    options_.create_if_missing = true;
    options_.memtable_factory = factory;
    // A rep without concurrent inserts is refused for that first otherwise.
    options_.allow_concurrent_memtable_write = factory->IsInsertConcurrentlySupported();
    txn_options_.write_policy = rdb::TxnDBWritePolicy::WRITE_PREPARED;
  }
  void TearDown() override {
    db_.reset();
    fs::remove_all(dir_);
  }
  rdb::Status Open() {
    db_.reset();
    rdb::TransactionDB* db = nullptr;
    rdb::Status s = rdb::TransactionDB::Open(options_, txn_options_, dir_, &db);
    db_.reset(db);
    return s;
  }
  bool DetectsDuplicates() const {
    const memrep::registry::Registration* rep = memrep::registry::Find(GetParam());
    return rep != nullptr && rep->traits.detects_duplicates();
  }
  // Every key's value, by a full scan, and by Get for each key of `expected`.
  void ExpectContent(const std::map<std::string, std::string>& expected) {
    std::map<std::string, std::string> scanned;
    std::unique_ptr<rdb::Iterator> it(db_->NewIterator(rdb::ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      scanned[it->key().ToString()] = it->value().ToString();
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_EQ(scanned, expected);
    for (const auto& [key, value] : expected) {
      std::string got;
      ASSERT_TRUE(db_->Get(rdb::ReadOptions(), key, &got).ok()) << key;
      EXPECT_EQ(got, value) << key;
    }
  }

  std::string dir_;
  rdb::Options options_;
  rdb::TransactionDBOptions txn_options_;
  std::unique_ptr<rdb::TransactionDB> db_;
};

TEST_P(WritePreparedTest, BatchesThatRepeatKeysReadTheirLastWrite) {
  const rdb::Status opened = Open();
  if (!DetectsDuplicates()) {
    // RocksDB's own refusal: the rep does not say it finds duplicates.
    EXPECT_TRUE(opened.IsInvalidArgument()) << opened.ToString();
    EXPECT_NE(opened.ToString().find("CanHandleDuplicatedKey"), std::string::npos)
        << opened.ToString();
    return;
  }
  ASSERT_TRUE(opened.ok()) << opened.ToString();
  // A transaction that writes a key three times, deletes and rewrites another.
  std::unique_ptr<rdb::Transaction> txn(db_->BeginTransaction(rdb::WriteOptions()));
  ASSERT_TRUE(txn->SetName("t1").ok());
  ASSERT_TRUE(txn->Put("a", "1").ok());
  ASSERT_TRUE(txn->Put("b", "2").ok());
  ASSERT_TRUE(txn->Put("a", "3").ok());
  ASSERT_TRUE(txn->Delete("b").ok());
  ASSERT_TRUE(txn->Put("a", "5").ok());
  ASSERT_TRUE(txn->Put("b", "6").ok());
  ASSERT_TRUE(txn->Prepare().ok());
  ASSERT_TRUE(txn->Commit().ok());
  txn.reset();
  // A plain batch written through the transaction DB: one sequence too.
  rdb::WriteBatch batch;
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 50; ++k) {
      ASSERT_TRUE(
          batch.Put("k" + std::to_string(k), "v" + std::to_string(k) + "." + std::to_string(round))
              .ok());
    }
  }
  ASSERT_TRUE(db_->Write(rdb::WriteOptions(), &batch).ok());
  std::map<std::string, std::string> expected = {{"a", "5"}, {"b", "6"}};
  for (int k = 0; k < 50; ++k) expected["k" + std::to_string(k)] = "v" + std::to_string(k) + ".2";
  ExpectContent(expected);
  // Recovery replays the WAL through the same duplicate checks.
  ASSERT_TRUE(Open().ok());
  ExpectContent(expected);
  ASSERT_TRUE(db_->Flush(rdb::FlushOptions()).ok());
  ExpectContent(expected);
}

std::vector<std::string> Reps() {
  std::vector<std::string> names;
  for (const memrep::registry::Registration* rep : memrep::registry::All()) {
    names.push_back(rep->name);
  }
  return names;
}

std::string Name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllReps, WritePreparedTest, ::testing::ValuesIn(Reps()), Name);

}  // namespace
