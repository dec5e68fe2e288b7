#include "overflow_rows.h"

#include "rocksdb_compat.h"

namespace memrep::rocksdb_plugin {

using ROCKSDB_NAMESPACE::Slice;

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
