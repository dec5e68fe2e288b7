// The seed part of the columnar_memtable peer: the seed's header
// (columnar_memtable.h of a conanhujinming/columnar_memtable checkout) behind
// SeedTable and SeedScan (columnar_memtable_seed.h). Compiled as the seed
// compiles itself (columnar_memtable.cmake): -std=c++17, -O3 -DNDEBUG,
// -march=native (MEMREP_PEER_COLUMNAR_MEMTABLE_CPU_FLAGS), -w; its header
// includes its own copy of xxhash.h (XXH_INLINE_ALL).
#include "columnar_memtable_seed.h"

#include "columnar_memtable.h"

namespace memrep::bench::columnar_peer {

struct SeedScan::Impl {
  std::unique_ptr<CompactingIterator> it;
};

SeedScan::SeedScan(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SeedScan::~SeedScan() = default;
bool SeedScan::Valid() const { return impl_->it->IsValid(); }
std::string_view SeedScan::key() const { return impl_->it->Get().key; }
std::string_view SeedScan::value() const { return impl_->it->Get().value; }
void SeedScan::Next() { impl_->it->Next(); }

struct SeedTable::Impl {
  std::shared_ptr<ColumnarMemTable> table;
};

SeedTable::SeedTable(const SeedOptions& options)
    : impl_(new Impl{ColumnarMemTable::Create(
          options.active_block_bytes, /*enable_compaction=*/false,
          options.radix_sorter ? std::shared_ptr<Sorter>(std::make_shared<ParallelRadixSorter>())
                               : std::shared_ptr<Sorter>(std::make_shared<StdSorter>()),
          options.shards, /*batch_worker_count=*/1, /*async_background_processing=*/true)}) {}

SeedTable::~SeedTable() = default;

void SeedTable::Put(std::string_view key, std::string_view value) { impl_->table->Put(key, value); }

void SeedTable::PutBatch(const std::vector<std::pair<std::string_view, std::string_view>>& batch) {
  impl_->table->PutBatch(batch);
}

std::optional<std::string_view> SeedTable::Get(std::string_view key) const {
  return impl_->table->Get(key);
}

std::vector<std::optional<std::string_view>> SeedTable::MultiGet(
    const std::vector<std::string_view>& keys) const {
  return impl_->table->MultiGet(keys);
}

std::unique_ptr<SeedScan> SeedTable::Scan() const {
  auto impl = std::make_unique<SeedScan::Impl>();
  impl->it = impl_->table->NewCompactingIterator();
  return std::unique_ptr<SeedScan>(new SeedScan(std::move(impl)));
}

size_t SeedTable::ApproximateMemoryUsage() const { return impl_->table->ApproximateMemoryUsage(); }

}  // namespace memrep::bench::columnar_peer
