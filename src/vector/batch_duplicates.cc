#include "vector/batch_duplicates.h"

#include <atomic>
#include <new>
#include <set>
#include <string_view>
#include <vector>

namespace memrep::vector {
namespace {

struct UserKeyLess {
  const format::KeyOrder* order;
  bool operator()(std::string_view a, std::string_view b) const {
    return order->CompareUserKeys(a, b) < 0;
  }
};

// The rows one rep stored at the thread's current sequence: the first one,
// and once a second arrives, all their user keys.
struct Group {
  uint64_t owner;
  const char* first;
  std::set<std::string_view, UserKeyLess> keys;
};

struct ThreadState {
  bool any = false;  // whether `seq` and `groups` describe a sequence yet
  uint64_t seq = 0;
  std::vector<Group> groups;
};

std::string_view UserKey(const char* row, uint64_t* seq) {
  uint64_t tag;
  const std::string_view key = format::RowUserKey(row, &tag);
  *seq = TagSequence(tag);
  return key;
}

}  // namespace

uint64_t BatchDuplicates::NewOwner() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);  // relaxed: only uniqueness matters
}

BatchDuplicates::Result BatchDuplicates::Admit(uint64_t owner, const format::KeyOrder& order,
                                               const char* row) noexcept {
  thread_local ThreadState state;
  uint64_t seq;
  const std::string_view key = UserKey(row, &seq);
  try {
    if (!state.any || seq != state.seq) {
      // A new sequence: no earlier row can be its duplicate. The groups'
      // sets are empty unless the last sequence repeated, so clearing them
      // frees nothing on the common path.
      state.any = false;
      state.groups.clear();
      state.groups.push_back(
          Group{owner, row, std::set<std::string_view, UserKeyLess>(UserKeyLess{&order})});
      state.seq = seq;
      state.any = true;
      return Result::kNew;
    }
    for (Group& group : state.groups) {
      if (group.owner != owner) continue;
      if (group.keys.empty()) {
        uint64_t first_seq;
        group.keys.insert(UserKey(group.first, &first_seq));
      }
      return group.keys.insert(key).second ? Result::kNew : Result::kDuplicate;
    }
    state.groups.push_back(
        Group{owner, row, std::set<std::string_view, UserKeyLess>(UserKeyLess{&order})});
    return Result::kNew;
  } catch (const std::bad_alloc&) {
    // Every insert above leaves its container as it was when it throws, so
    // the state still holds exactly the rows recorded before this one (none,
    // if a new sequence could not start).
    return Result::kNoMemory;
  }
}

}  // namespace memrep::vector
