// User-key order. memrep orders internal keys by user key (this order), then
// by sequence descending.
#pragma once

#include <string_view>

#include "memrep/export.h"

namespace memrep {

// A total order on user keys. Which comparators a rep can serve is one of its
// traits (RepTraits::comparators): a hash index finds keys by their bytes, so
// it needs an order in which only byte-equal keys compare equal (not case
// folding, not keys with a user-defined timestamp suffix); a trie or a radix
// sort needs the bytewise order or its reverse.
class MEMREP_EXPORT UserKeyComparator {
 public:
  virtual ~UserKeyComparator() = default;
  virtual const char* Name() const = 0;
  virtual int Compare(std::string_view a, std::string_view b) const = 0;
  // Whether keys compare equal only when their bytes are equal, so that a
  // hash of a key's bytes finds every version of it: what a rep with a hash
  // index needs (RepTraits::Comparators::kByteEquality). A comparator that
  // folds case, or whose keys carry a timestamp a read looks past, answers
  // false. memrep cannot check it; the default trusts the comparator.
  virtual bool EqualOnlyWhenBytesEqual() const { return true; }
};

// Lexicographic unsigned byte order, the default, and its reverse. Reps
// recognise both and compare inline, with an 8-byte key prefix deciding most
// comparisons; any other comparator costs a virtual call per comparison.
MEMREP_EXPORT const UserKeyComparator* BytewiseComparator();
MEMREP_EXPORT const UserKeyComparator* ReverseBytewiseComparator();

}  // namespace memrep
