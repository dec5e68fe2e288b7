#include "columnar/column_index.h"

namespace memrep::columnar {

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

}  // namespace memrep::columnar
