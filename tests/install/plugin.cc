// An installed memrep plugin: linking it is all it takes for RocksDB to know
// every memrep rep by name, here from an options string.
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

namespace rdb = ROCKSDB_NAMESPACE;

int main() {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("memrep_consumer_" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(path);
  rdb::Options options;
  options.create_if_missing = true;
  rdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  rdb::Status s = rdb::GetColumnFamilyOptionsFromString(
      config, options, "memtable_factory={id=memrep.SortedHash;max_runs=4}", &options);
  rdb::DB* raw = nullptr;
  if (s.ok()) s = rdb::DB::Open(options, path, &raw);
  std::unique_ptr<rdb::DB> db(raw);
  std::string value;
  if (s.ok()) s = db->Put(rdb::WriteOptions(), "key", "value");
  if (s.ok()) s = db->Get(rdb::ReadOptions(), "key", &value);
  if (!s.ok() || value != "value") {
    std::fprintf(stderr, "plugin consumer: %s\n", s.ToString().c_str());
    return 1;
  }
  const std::string factory = db->GetOptions().memtable_factory->Name();
  if (factory != "memrep.SortedHash") {
    std::fprintf(stderr, "plugin consumer: the memtable is %s: the plugin was not loaded\n",
                 factory.c_str());
    return 1;
  }
  std::printf("plugin: key=%s in a memtable of %s\n", value.c_str(), factory.c_str());
  db.reset();
  std::filesystem::remove_all(path);
  return 0;
}
