#include "memrep/comparator.h"

#include "format/key_order.h"

namespace memrep {
namespace {

class BytewiseUserKeyComparator final : public UserKeyComparator {
 public:
  const char* Name() const override { return "memrep.Bytewise"; }
  int Compare(std::string_view a, std::string_view b) const override {
    return format::BytewiseCompare(a, b);
  }
};

class ReverseBytewiseUserKeyComparator final : public UserKeyComparator {
 public:
  const char* Name() const override { return "memrep.ReverseBytewise"; }
  int Compare(std::string_view a, std::string_view b) const override {
    return format::BytewiseCompare(b, a);
  }
};

}  // namespace

const UserKeyComparator* BytewiseComparator() {
  static const BytewiseUserKeyComparator instance;
  return &instance;
}

const UserKeyComparator* ReverseBytewiseComparator() {
  static const ReverseBytewiseUserKeyComparator instance;
  return &instance;
}

}  // namespace memrep
