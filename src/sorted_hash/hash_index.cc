#include "sorted_hash/hash_index.h"

#include <memory>
#include <new>

namespace memrep::sorted_hash {

Status HashIndex::Init(Allocator* allocator) {
  allocator_ = allocator;
  auto first = std::unique_ptr<HashTable>(
      new (std::nothrow) HashTable(first_buckets_, &region_, /*with_older=*/false));
  if (first == nullptr) return Status::OutOfMemory("could not allocate a hash table");
  Status s = first->Init(allocator);
  if (!s.ok()) return s;
  tables_.InitFirst(std::move(first));
  if (first_buckets_ < max_buckets_) {
    grow_at_.store(first_buckets_ * bytes_per_bucket_, std::memory_order_relaxed);
  }
  return Status::OK();
}

bool HashIndex::Insert(const format::KeyOrder& order, Node* node, RowRef ref, uint64_t hash) {
  // seq_cst: invariant 6.
  return InsertSeeing(order, node, ref, hash, tables_.count_seq_cst());
}

bool HashIndex::InsertSeeing(const format::KeyOrder& order, Node* node, RowRef ref, uint64_t hash,
                             int n) {
  uint64_t tag;
  const std::string_view user_key = format::RowUserKey(node->row(), &tag);
  // The newest table holding the key's group, if any.
  int found = -1;
  uint32_t filter = 0;
  // Before the filter's load: invariant 8.
  const bool covered = tables_.covered(n - 1);
  for (int i = n - 1; i >= 0 && found < 0; --i) {
    if (tables_.table(i).FindGroup(order, user_key, hash, std::memory_order_seq_cst, &filter) !=
        nullptr) {
      found = i;
    } else if (i == n - 1 && covered && !tables_.table(i).MayBeOlder(hash)) {
      break;  // a new key: invariant 8
    }
  }
  if (found >= 0 && (filter & HashTable::kSplitBit) != 0 &&
      InAnotherGroup(order, n, user_key, TagSequence(tag), hash, found)) {
    return false;
  }
  const int target = found >= 0 ? found : n - 1;
  switch (tables_.table(target).Link(order, node, ref, user_key, tag, hash)) {
    case HashTable::Linked::kDuplicate:
      return false;
    case HashTable::Linked::kVersion:
      return true;  // invariant 7
    case HashTable::Linked::kNewGroup:
      break;
  }
  // Invariant 6: every table published above the one linked into is marked
  // for this key.
  // Invariant 8: until a load of count_ after the last mark finds no new
  // table (a grower that published after it reads the marks).
  for (int marked = target + 1, now; (now = tables_.count_seq_cst()) > marked; marked = now) {
    for (int i = marked; i < now; ++i) tables_.table(i).MarkSplit(hash);
  }
  return true;
}

bool HashIndex::InAnotherGroup(const format::KeyOrder& order, int tables, std::string_view user_key,
                               uint64_t seq, uint64_t hash, int found) const {
  // The key has groups in more than one table (a key two writers raced on
  // around a growth: rare), so a duplicate may be in any of them.
  for (int i = 0; i < tables; ++i) {
    if (i == found) continue;
    const HashTable& table = tables_.table(i);
    uint32_t filter;
    const Node* group = table.FindGroup(order, user_key, hash, std::memory_order_acquire, &filter);
    uint64_t tag;
    const Node* v = group == nullptr ? nullptr : table.SkipNewer(order, group, user_key, seq, &tag);
    if (v != nullptr && TagSequence(tag) == seq) return true;
  }
  return false;
}

bool HashIndex::Contains(const format::KeyOrder& order, std::string_view internal_key) const {
  const uint64_t seq =
      TagSequence(format::DecodeFixed64(internal_key.data() + internal_key.size() - 8));
  bool found = false;
  ForEachVersion(order, internal_key, HashOf(internal_key), [&](const Node* node) {
    uint64_t tag;
    (void)format::RowUserKey(node->row(), &tag);
    found = TagSequence(tag) == seq;
    return false;  // the first version at or below seq decides
  });
  return found;
}

void HashIndex::Grow(size_t row_bytes, uint64_t entries) {
  tables_.Grow(
      [&](std::unique_ptr<HashTable>* out) {
        // Under the grower's flag: only this thread reads or changes grow_at_
        // and the newest table's count now, so the check holds.
        const HashTable& newest = tables_.newest();
        if (row_bytes <= newest.bucket_count() * bytes_per_bucket_) return Status::OK();
        if (entries <= newest.bucket_count() * kEntriesPerBucket) {
          // Big rows, few of them: look again once the rows grew by a quarter.
          grow_at_.store(row_bytes + row_bytes / 4, std::memory_order_relaxed);
          return Status::OK();
        }
        const uint64_t buckets = std::min(newest.bucket_count() * kGrowth, max_buckets_);
        auto table = std::unique_ptr<HashTable>(
            new (std::nothrow) HashTable(buckets, &region_, /*with_older=*/true));
        if (table == nullptr) return Status::OutOfMemory("could not allocate a hash table");
        Status s = table->Init(allocator_);
        // Out of memory: the tables there are take the keys (longer chains); a
        // later insert tries again.
        if (!s.ok()) return s;
        // relaxed: a hint (MaybeGrow).
        grow_at_.store(buckets < max_buckets_ && tables_.count() + 1 < kMaxTables
                           ? buckets * bytes_per_bucket_
                           : ~uint64_t{0},
                       std::memory_order_relaxed);
        *out = std::move(table);
        return Status::OK();
      },
      [&](HashTable& table, int older) {
        for (int i = 0; i < older; ++i) table.Cover(tables_.table(i));
      });
}

size_t HashIndex::bytes() const {
  size_t total = 0;
  for (int i = 0, n = tables_.count(); i < n; ++i) total += tables_.table(i).bytes();
  return total;
}

size_t HashIndex::MappedBytes() const {
  size_t total = 0;
  for (int i = 0, n = tables_.count(); i < n; ++i) total += tables_.table(i).MappedBytes();
  return total;
}

}  // namespace memrep::sorted_hash
