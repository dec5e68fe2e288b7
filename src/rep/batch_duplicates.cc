#include "rep/batch_duplicates.h"

#include <atomic>
#include <new>
#include <set>
#include <string_view>
#include <vector>

namespace memrep::rep {
namespace {

struct UserKeyLess {
  const format::KeyOrder* order;
  bool operator()(std::string_view a, std::string_view b) const {
    return order->CompareUserKeys(a, b) < 0;
  }
};

// The keys one rep stored at the thread's current sequence: the first one,
// and once a second arrives, all of them.
struct Group {
  uint64_t owner;
  std::string_view first;
  std::set<std::string_view, UserKeyLess> keys;
};

// The thread's sequence and the first key stored at it: constant-initialized
// and initial-exec, so the common path (every insert at a new sequence) is a
// few loads and stores with no TLS call and no initialization guard.
struct First {
  bool any;       // whether the fields below describe a sequence yet
  bool repeated;  // whether Repeats() holds the groups of this sequence
  uint64_t seq;
  uint64_t owner;
  const format::KeyOrder* order;
  const char* key;
  size_t key_len;
  // The sequence before this one and the rep that began it (prev_owner 0:
  // none): the one a thread may go back to, as RocksDB's own duplicate
  // test does, and a rep then looks the row up.
  uint64_t prev_seq;
  uint64_t prev_owner;
};
[[gnu::tls_model("initial-exec")]] thread_local First first{};

// The groups of a sequence that repeated: one per rep, in the order they came.
std::vector<Group>& Repeats() {
  thread_local std::vector<Group> groups;
  return groups;
}

using KeySet = std::set<std::string_view, UserKeyLess>;

// A second key or more at the thread's sequence.
BatchDuplicates::Result AdmitRepeat(uint64_t owner, const format::KeyOrder& order,
                                    std::string_view key) {
  std::vector<Group>& groups = Repeats();
  if (!first.repeated) {
    groups.clear();
    groups.push_back(Group{first.owner, std::string_view(first.key, first.key_len),
                           KeySet(UserKeyLess{first.order})});
    first.repeated = true;
  }
  for (Group& group : groups) {
    if (group.owner != owner) continue;
    if (group.keys.empty()) group.keys.insert(group.first);
    return group.keys.insert(key).second ? BatchDuplicates::Result::kNew
                                         : BatchDuplicates::Result::kDuplicate;
  }
  groups.push_back(Group{owner, key, KeySet(UserKeyLess{&order})});
  return BatchDuplicates::Result::kNew;
}

}  // namespace

uint64_t BatchDuplicates::NewOwner() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);  // relaxed: only uniqueness matters
}

SequenceNumber BatchDuplicates::Current() noexcept { return first.any ? first.seq : 0; }

bool BatchDuplicates::RecordedAtCurrent(uint64_t owner) noexcept {
  if (!first.any) return false;
  if (first.owner == owner) return true;
  if (!first.repeated) return false;
  for (const Group& group : Repeats()) {
    if (group.owner == owner) return true;
  }
  return false;
}

bool BatchDuplicates::MayGoBack(uint64_t owner, std::span<const EntryView> entries) noexcept {
  // Admit's rules, on the sequences alone: 0 stands for none (RocksDB's
  // sequences start at 1).
  uint64_t cur = RecordedAtCurrent(owner) ? first.seq : 0;
  uint64_t prev = first.any && first.prev_owner == owner ? first.prev_seq : 0;
  for (const EntryView& e : entries) {
    const uint64_t seq = e.sequence();
    if (seq == cur) continue;
    if (seq == prev && prev != 0) return true;
    prev = cur;
    cur = seq;
  }
  return false;
}

BatchDuplicates::Result BatchDuplicates::Admit(uint64_t owner, const format::KeyOrder& order,
                                               std::string_view key, SequenceNumber seq) noexcept {
  // Back at the sequence before the current one, for the rep that wrote it:
  // a row of it may be repeated; the rep looks it up (nothing changes here).
  if (first.any && seq == first.prev_seq && owner == first.prev_owner && seq != first.seq) {
    return Result::kEarlier;
  }
  if (!first.any || seq != first.seq) {
    // A new sequence (above the current one or, for a thread that goes back,
    // below it): it begins a group, and the current one becomes the one
    // before. No other row can repeat it but one of that earlier sequence,
    // which the check above finds. The groups of a sequence that repeated
    // are dropped (clear() frees no memory and cannot throw).
    if (first.repeated) Repeats().clear();
    const uint64_t prev_seq = first.any ? first.seq : 0;
    const uint64_t prev_owner = first.any ? first.owner : 0;
    first = First{true, false, seq, owner, &order, key.data(), key.size(), prev_seq, prev_owner};
    return Result::kNew;
  }
  try {
    return AdmitRepeat(owner, order, key);
  } catch (const std::bad_alloc&) {
    // Every insert in AdmitRepeat leaves its container as it was when it
    // throws, so the state still holds exactly the keys recorded before.
    return Result::kNoMemory;
  }
}

}  // namespace memrep::rep
