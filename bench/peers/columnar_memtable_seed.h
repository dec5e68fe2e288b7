// The columnar_memtable peer's seam between its two parts
// (columnar_memtable.cmake): the seed's table as the adapter
// (columnar_memtable.cc) sees it. The seed part (columnar_memtable_seed.cc)
// implements it over the seed's header. This header is C++17 and includes
// nothing of the seed's or of memrep's, so that both parts compile it with
// their own flags.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace memrep::bench::columnar_peer {

// The seed's table, as the adapter sees it. Every call may throw what the
// seed throws (std::bad_alloc, std::length_error for a record over 32 KiB,
// std::runtime_error); the adapter turns those into statuses.
struct SeedOptions {
  size_t active_block_bytes = 0;
  size_t shards = 0;
  bool radix_sorter = false;
};

// The seed's ordered scan (NewCompactingIterator): every key once, its
// newest record, in bytewise key order. Views valid for the table's life.
class SeedScan {
 public:
  ~SeedScan();
  bool Valid() const;
  std::string_view key() const;
  std::string_view value() const;
  void Next();

 private:
  friend class SeedTable;
  struct Impl;
  explicit SeedScan(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class SeedTable {
 public:
  explicit SeedTable(const SeedOptions& options);
  ~SeedTable();
  void Put(std::string_view key, std::string_view value);
  void PutBatch(const std::vector<std::pair<std::string_view, std::string_view>>& batch);
  // The value's view stays valid until this thread's next call of the seed.
  std::optional<std::string_view> Get(std::string_view key) const;
  std::vector<std::optional<std::string_view>> MultiGet(
      const std::vector<std::string_view>& keys) const;
  // Seals the active blocks, waits for their sort, merges every block.
  std::unique_ptr<SeedScan> Scan() const;
  size_t ApproximateMemoryUsage() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace memrep::bench::columnar_peer
