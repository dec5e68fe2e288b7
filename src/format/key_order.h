// KeyOrder: how a rep compares internal keys and rows, with the bytewise
// comparator and its reverse inlined, and an order-preserving 8-byte prefix
// for fast searches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "format/coding.h"
#include "memrep/comparator.h"
#include "memrep/entry.h"

namespace memrep::format {

// An internal key's user key and its tag (the 8 bytes that follow it).
// REQUIRES: internal_key.size() >= 8.
inline std::string_view UserKey(std::string_view internal_key) {
  return internal_key.substr(0, internal_key.size() - 8);
}
inline uint64_t KeyTag(std::string_view internal_key) {
  return DecodeFixed64(internal_key.data() + internal_key.size() - 8);
}

// The user key of a row, and its tag, without decoding the value.
inline std::string_view RowUserKey(const char* row, uint64_t* tag) {
  uint32_t internal_key_size;
  const char* p = DecodeVarint32(row, &internal_key_size);
  *tag = DecodeFixed64(p + internal_key_size - 8);
  return std::string_view(p, internal_key_size - 8);
}

// A row's internal key (user key and tag, which follow each other in it).
inline std::string_view RowInternalKey(const char* row) {
  uint64_t tag;
  const std::string_view user_key = RowUserKey(row, &tag);
  return std::string_view(user_key.data(), user_key.size() + 8);
}

inline int BytewiseCompare(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  int r = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (r == 0) r = a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  return r;
}

class KeyOrder {
 public:
  enum class Kind : uint8_t { kBytewise, kReverseBytewise, kCustom };

  // nullptr means BytewiseComparator(). memrep's two built-in comparators are
  // recognised and compared inline.
  explicit KeyOrder(const UserKeyComparator* user)
      : kind_(user == nullptr || user == BytewiseComparator() ? Kind::kBytewise
              : user == ReverseBytewiseComparator()           ? Kind::kReverseBytewise
                                                              : Kind::kCustom),
        user_(user == nullptr ? BytewiseComparator() : user) {}

  Kind kind() const { return kind_; }
  bool bytewise() const { return kind_ == Kind::kBytewise; }
  const UserKeyComparator* user_comparator() const { return user_; }

  int CompareUserKeys(std::string_view a, std::string_view b) const {
    if (kind_ == Kind::kBytewise) return BytewiseCompare(a, b);
    return kind_ == Kind::kReverseBytewise ? BytewiseCompare(b, a) : user_->Compare(a, b);
  }

  // Internal-key order: user key ascending, then sequence descending; the
  // type byte is ignored.
  int Compare(std::string_view a_user, uint64_t a_tag, std::string_view b_user,
              uint64_t b_tag) const {
    int r = CompareUserKeys(a_user, b_user);
    if (r != 0) return r;
    const uint64_t a_seq = TagSequence(a_tag), b_seq = TagSequence(b_tag);
    return a_seq > b_seq ? -1 : (a_seq < b_seq ? 1 : 0);
  }

  int CompareRows(const char* a, const char* b) const {
    uint64_t a_tag, b_tag;
    std::string_view a_user = RowUserKey(a, &a_tag);
    std::string_view b_user = RowUserKey(b, &b_tag);
    return Compare(a_user, a_tag, b_user, b_tag);
  }

  // REQUIRES: internal_key.size() >= 8.
  int CompareRowToKey(const char* row, std::string_view internal_key) const {
    uint64_t tag;
    std::string_view user = RowUserKey(row, &tag);
    return Compare(user, tag, UserKey(internal_key), KeyTag(internal_key));
  }

  // A summary of a user key such that Prefix(a) < Prefix(b) implies a < b:
  // its first 8 bytes, big-endian, zero-padded (bit-inverted for the reverse
  // order). Zero for every key under a custom comparator, where bytes say
  // nothing about order.
  uint64_t Prefix(std::string_view user_key) const {
    if (kind_ == Kind::kCustom) return 0;
    uint64_t v = 0;
    if (!user_key.empty()) std::memcpy(&v, user_key.data(), std::min<size_t>(8, user_key.size()));
    v = __builtin_bswap64(v);
    return kind_ == Kind::kBytewise ? v : ~v;
  }

 private:
  Kind kind_;
  const UserKeyComparator* user_;
};

}  // namespace memrep::format
