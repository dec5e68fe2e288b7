// User-key order. memrep orders internal keys by user key (this order), then
// by sequence descending.
#pragma once

#include <string_view>

namespace memrep {

// A total order on user keys. REQUIRES of every implementation: two keys
// compare equal only if their bytes are equal. The hash index of the sorted
// hash rep finds a key by its bytes, so an order that treats different byte
// strings as equal (case folding, or keys with a user-defined timestamp
// suffix) cannot be served.
class UserKeyComparator {
 public:
  virtual ~UserKeyComparator() = default;
  virtual const char* Name() const = 0;
  virtual int Compare(std::string_view a, std::string_view b) const = 0;
};

// Lexicographic unsigned byte order, the default. Reps recognise it and compare
// inline, with an 8-byte key prefix deciding most comparisons; any other
// comparator costs a virtual call per comparison.
const UserKeyComparator* BytewiseComparator();

}  // namespace memrep
