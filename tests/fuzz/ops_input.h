// How ops_fuzz reads its input (the layout is in ops_fuzz.cc): the byte
// reader, each operation's arguments, and the keys, values and comparators
// they stand for.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "escaped.h"
#include "memrep/comparator.h"
#include "memrep/entry.h"

namespace memrep::fuzz {

// Reads the input front to back; 0 once it is used up.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// An operation's arguments: the kArgBytes bytes after its opcode, then as
// many more as it needs from a generator seeded with them. Every operation
// takes the same room in the input, so a mutation of one leaves the others
// alone, and a batch of 8 records needs no more input than a Get.
constexpr size_t kArgBytes = 7;

class Args {
 public:
  Args() = default;
  explicit Args(Input* in) {
    for (uint8_t& b : bytes_) {
      b = in->Byte();
      state_ = (state_ ^ b) * 0x100000001b3;  // FNV-1a: a seed that every byte moves
    }
  }
  uint8_t Byte() {
    if (pos_ < kArgBytes) return bytes_[pos_++];
    state_ ^= state_ << 13;  // xorshift64
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return static_cast<uint8_t>(state_ >> 56);
  }
  uint16_t Word() {
    const uint16_t low = Byte();
    return static_cast<uint16_t>(low | Byte() << 8);
  }

 private:
  uint8_t bytes_[kArgBytes] = {};
  size_t pos_ = 0;
  uint64_t state_ = 0xcbf29ce484222325;
};

// The bytewise order (or its reverse) under a name memrep does not know:
// reps then compare through this virtual call, not their inline prefix path.
class VirtualComparator final : public UserKeyComparator {
 public:
  explicit VirtualComparator(bool reverse) : reverse_(reverse) {}
  const char* Name() const override { return reverse_ ? "fuzz.VirtualReverse" : "fuzz.Virtual"; }
  int Compare(std::string_view a, std::string_view b) const override {
    const int c = a.compare(b);
    return reverse_ ? -c : c;
  }

 private:
  bool reverse_;
};
inline const VirtualComparator kVirtualBytewise(false);
inline const VirtualComparator kVirtualReverse(true);

// A key or value as a report shows it: escaped, in single quotes.
inline std::string Quoted(std::string_view text) { return "'" + Escaped(text) + "'"; }

// A key from one byte: a prefix (none, one byte, exactly the 8 bytes reps
// compare inline, or longer) and up to two bytes from {0x00, a, b, 0xff}: 84
// keys, which differ at the edges of the inline prefix.
inline std::string KeyFrom(uint8_t b) {
  static constexpr std::string_view kPrefixes[] = {"", "k", "prefix08", "prefix08-and-more"};
  static constexpr char kBytes[] = {'\0', 'a', 'b', '\xff'};
  std::string key(kPrefixes[b & 3]);
  const int n = std::min((b >> 2) & 3, 2);
  for (int i = 0; i < n; ++i) key += kBytes[(b >> (4 + 2 * i)) & 3];
  return key;
}

// A value of one of a few sizes, from empty to past a page, that names its
// sequence so that records are told apart.
inline std::string ValueFor(uint8_t size_code, SequenceNumber seq) {
  static constexpr size_t kSizes[] = {0, 1, 8, 9, 100, 1000, 4100, 20};
  std::string value = std::to_string(seq) + ":";
  value.resize(kSizes[size_code & 7], static_cast<char>('a' + seq % 26));
  return value;
}

inline const char* TypeName(uint8_t type) {
  switch (static_cast<ValueType>(type)) {
    case ValueType::kValue:
      return "Put";
    case ValueType::kDeletion:
      return "Delete";
    case ValueType::kMerge:
      return "Merge";
    default:
      return "BadType";
  }
}

}  // namespace memrep::fuzz
