#include "overflow_rows.h"

#include "rocksdb_abi.h"

namespace memrep::rocksdb_plugin {

using ROCKSDB_NAMESPACE::Slice;

char* OverflowRows::Allocate(ROCKSDB_NAMESPACE::Allocator* arena, size_t len) {
  // RocksDB's arena reports no failure: like the skip list's rows, these
  // take what RocksDB's own allocation gives.
  char* row = arena->AllocateAligned(len);
  concurrency::MutexLock lock(&mu_);
  pending_.insert(row);
  bytes_.fetch_add(kNodeBytes, std::memory_order_relaxed);  // relaxed: a statistic
  return row;
}

bool OverflowRows::TakePending(const char* row) {
  concurrency::MutexLock lock(&mu_);
  return pending_.erase(row) == 1;
}

bool OverflowRows::Insert(const char* row) {
  concurrency::MutexLock lock(&mu_);
  if (!rows_.insert(row).second) return false;
  bytes_.fetch_add(kNodeBytes, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_release);
  return true;
}

bool OverflowRows::Contains(std::string_view internal_key) const {
  const Slice key(internal_key.data(), internal_key.size());
  concurrency::MutexLock lock(&mu_);
  const auto it = rows_.lower_bound(key);
  return it != rows_.end() && (*rows_.key_comp().cmp)(*it, key) == 0;
}

std::vector<const char*> OverflowRows::Snapshot() const {
  concurrency::MutexLock lock(&mu_);
  return std::vector<const char*>(rows_.begin(), rows_.end());
}

}  // namespace memrep::rocksdb_plugin
