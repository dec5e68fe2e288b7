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

BatchDuplicates::Result BatchDuplicates::Admit(uint64_t owner, const format::KeyOrder& order,
                                               std::string_view key, SequenceNumber seq) noexcept {
  if (first.any && seq < first.seq) return Result::kEarlier;
  if (!first.any || seq != first.seq) {
    // A new sequence: no earlier row can be its duplicate. The groups of a
    // sequence that repeated are dropped (clear() frees no memory and
    // cannot throw).
    if (first.repeated) Repeats().clear();
    first = First{true, false, seq, owner, &order, key.data(), key.size()};
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
