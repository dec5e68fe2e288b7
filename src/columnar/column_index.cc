#include "columnar/column_index.h"

#include <new>

namespace memrep::columnar {

Status ColumnIndex::Init(Allocator* allocator) {
  allocator_ = allocator;
  auto first = std::unique_ptr<ColumnTable>(
      new (std::nothrow) ColumnTable(first_buckets_, &region_, /*with_older=*/false));
  if (first == nullptr) return Status::OutOfMemory("could not allocate a columnar index table");
  Status s = first->Init(allocator);
  if (!s.ok()) return s;
  tables_.InitFirst(std::move(first));
  if (first_buckets_ < max_buckets_) {
    grow_at_.store(first_buckets_ * bytes_per_bucket_, std::memory_order_relaxed);
  }
  return Status::OK();
}

ColumnIndex::Result ColumnIndex::InsertSeeing(const format::KeyOrder& order, RowRef ref,
                                              uint64_t hash, OverflowStash* stash, int n) {
  uint64_t tag;
  const std::string_view key = NodeAt(region_, ref)->user_key(&tag);
  // A key found in an older table gets its version there (invariant 7);
  // else the newest table's Insert, which finds the key there itself.
  bool split;
  // Before the older bits' load: invariant 8.
  const bool covered = tables_.covered(n - 1);
  if (n > 1 &&
      tables_.table(n - 1).Find(order, key, hash, std::memory_order_seq_cst, &split) == 0 &&
      (!covered || tables_.table(n - 1).MayBeOlder(hash))) {
    for (int i = n - 2; i >= 0; --i) {
      const RowRef v = tables_.table(i).Find(order, key, hash, std::memory_order_seq_cst, &split);
      if (v == 0) continue;
      // A split key's duplicate may be in another table's chain (rare): the
      // rep's batch check finds the ones RocksDB makes.
      return tables_.table(i).LinkVersionOf(order, v, ref, hash) ? Result::kLinkedVersion
                                                                 : Result::kDuplicate;
    }
  }
  const Result result = tables_.table(n - 1).Insert(order, ref, hash, stash);
  if (result == Result::kLinked) {
    // Invariants 6 and 8: until a load of count_ after the last mark finds
    // no new table.
    for (int marked = n, now; (now = tables_.count_seq_cst()) > marked; marked = now) {
      for (int i = marked; i < now; ++i) tables_.table(i).MarkSplit(hash);
    }
  }
  return result;
}

int ColumnIndex::FindChains(const format::KeyOrder& order, std::string_view user_key, uint64_t hash,
                            RowRef* heads) const {
  const int n = tables_.count();
  const bool covered = tables_.covered(n - 1);  // before the older bits: invariant 8
  for (int i = n - 1; i >= 0; --i) {
    bool split;
    const RowRef v =
        tables_.table(i).Find(order, user_key, hash, std::memory_order_acquire, &split);
    if (v == 0) {
      if (i == n - 1 && covered && !tables_.table(i).MayBeOlder(hash)) return 0;
      continue;
    }
    heads[0] = v;
    if (!split) return 1;
    int found = 1;
    for (int j = i - 1; j >= 0; --j) {
      const RowRef w = tables_.table(j).Find(order, user_key, hash);
      if (w != 0) heads[found++] = w;
    }
    return found;
  }
  return 0;
}

void ColumnIndex::Grow(size_t row_bytes, uint64_t entries) {
  tables_.Grow(
      [&](std::unique_ptr<ColumnTable>* out) {
        // Under the grower's flag: the check holds (Generations).
        const ColumnTable& newest = tables_.newest();
        if (row_bytes <= newest.bucket_count() * bytes_per_bucket_) return Status::OK();
        if (entries <= newest.bucket_count() * kEntriesPerBucket) {
          // Big rows, few of them: look again once the rows grew by a quarter.
          grow_at_.store(row_bytes + row_bytes / 4, std::memory_order_relaxed);
          return Status::OK();
        }
        const uint64_t buckets = std::min(newest.bucket_count() * kGrowth, max_buckets_);
        auto table = std::unique_ptr<ColumnTable>(
            new (std::nothrow) ColumnTable(buckets, &region_, /*with_older=*/true));
        if (table == nullptr)
          return Status::OutOfMemory("could not allocate a columnar index table");
        Status s = table->Init(allocator_);
        if (!s.ok()) return s;  // the tables there are take the keys; a later insert tries again
        grow_at_.store(buckets < max_buckets_ && tables_.count() + 1 < kMaxTables
                           ? buckets * bytes_per_bucket_
                           : ~uint64_t{0},
                       std::memory_order_relaxed);
        *out = std::move(table);
        return Status::OK();
      },
      [&](ColumnTable& table, int older) {
        for (int i = 0; i < older; ++i) table.Cover(tables_.table(i));
      });
}

size_t ColumnIndex::bytes() const {
  size_t total = 0;
  for (int i = 0, n = tables_.count(); i < n; ++i) total += tables_.table(i).bytes();
  return total;
}

size_t ColumnIndex::MappedBytes() const {
  size_t total = 0;
  for (int i = 0, n = tables_.count(); i < n; ++i) total += tables_.table(i).MappedBytesCharged();
  return total;
}

uint64_t ColumnIndex::overflow_buckets() const {
  uint64_t total = 0;
  for (int i = 0, n = tables_.count(); i < n; ++i) total += tables_.table(i).overflow_buckets();
  return total;
}

}  // namespace memrep::columnar
