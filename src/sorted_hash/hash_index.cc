#include "sorted_hash/hash_index.h"

#include <memory>

namespace memrep::sorted_hash {

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
  const uint64_t seq = TagSequence(format::KeyTag(internal_key));
  bool found = false;
  ForEachVersion(order, internal_key, HashOf(internal_key), [&](const Node* node) {
    uint64_t tag;
    (void)format::RowUserKey(node->row(), &tag);
    found = TagSequence(tag) == seq;
    return false;  // the first version at or below seq decides
  });
  return found;
}

}  // namespace memrep::sorted_hash
