// Using a memrep rep inside stock RocksDB, three ways.
// Built and run by CI (ctest: example_rocksdb_options).
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "memrep/rocksdb.h"

namespace rdb = ROCKSDB_NAMESPACE;

int main() {
  const std::string path = (std::filesystem::temp_directory_path() / "memrep_example_db").string();
  std::filesystem::remove_all(path);

  rdb::Options options;
  options.create_if_missing = true;

  // 1. From C++: the factory an options string names.
  rdb::Status s = memrep::rocksdb_plugin::NewRepFactory("id=memrep.SortedHash; max_runs=8",
                                                        &options.memtable_factory);
  if (!s.ok()) {
    std::fprintf(stderr, "factory: %s\n", s.ToString().c_str());
    return 1;
  }

  // 2. From a string, as an OPTIONS file or a command line gives it: linking
  // the plugin registered every memrep rep with RocksDB.
  rdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  s = rdb::MemTableRepFactory::CreateFromString(
      config, "id=memrep.SortedHash; bucket_count=auto; max_runs=8", &options.memtable_factory);
  if (!s.ok()) {
    std::fprintf(stderr, "factory: %s\n", s.ToString().c_str());
    return 1;
  }

  // 3. A bad string is an error, not a crash.
  std::shared_ptr<rdb::MemTableRepFactory> bad;
  s = rdb::MemTableRepFactory::CreateFromString(config, "id=memrep.SortedHash; max_runs=1", &bad);
  std::printf("a bad option: %s\n", s.ToString().c_str());

  rdb::DB* raw = nullptr;
  s = rdb::DB::Open(options, path, &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
    return 1;
  }
  std::unique_ptr<rdb::DB> db(raw);
  for (int i = 0; i < 1000 && s.ok(); ++i) {
    s = db->Put(rdb::WriteOptions(), "key" + std::to_string(i), "value" + std::to_string(i));
  }
  std::string value;
  if (s.ok()) s = db->Get(rdb::ReadOptions(), "key42", &value);
  if (!s.ok()) {
    std::fprintf(stderr, "write/read: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("key42 = %s\n", value.c_str());
  std::unique_ptr<rdb::Iterator> it(db->NewIterator(rdb::ReadOptions()));
  int n = 0;
  for (it->Seek("key9"); it->Valid() && n < 3; it->Next(), ++n) {
    std::printf("scan: %s\n", it->key().ToString().c_str());
  }
  std::printf("memtable factory: %s\n", db->GetOptions().memtable_factory->Name());
  it.reset();  // iterators go before their database
  db.reset();
  std::filesystem::remove_all(path);
  return 0;
}
