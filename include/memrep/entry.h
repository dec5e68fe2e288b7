// The entry: the one record format every memrep rep stores, byte for byte the
// layout of a RocksDB memtable record, so that a rep serves both faces.
//
//   varint32 internal_key_len | user_key | fixed64 tag | varint32 value_len | value [| checksum]
//
// where internal_key_len = user_key.size() + 8 and tag = (sequence << 8) | type,
// little-endian. An *internal key* is `user_key | tag`.
//
// Order: user key ascending (by the rep's user-key comparator), then sequence
// descending. The type is not part of the order, so two entries with the same
// user key and sequence are duplicates whatever their types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace memrep {

using SequenceNumber = uint64_t;

// Sequence numbers use 56 bits; the low byte of the tag is the type.
inline constexpr SequenceNumber kMaxSequenceNumber = (uint64_t{1} << 56) - 1;

// The record kinds memrep writes itself. Reps store any type byte they are
// given (RocksDB has more: merge operands, blob indexes, ...).
enum class ValueType : uint8_t {
  kDeletion = 0x0,
  kValue = 0x1,
  kMerge = 0x2,
  // The type a lookup key carries: tags compare by sequence only, so a lookup at
  // snapshot s finds the newest version with sequence <= s.
  kForSeek = 0x16,
};

inline constexpr uint64_t PackTag(SequenceNumber seq, uint8_t type) { return (seq << 8) | type; }
inline constexpr SequenceNumber TagSequence(uint64_t tag) { return tag >> 8; }
inline constexpr uint8_t TagType(uint64_t tag) { return static_cast<uint8_t>(tag & 0xff); }

// A decoded view into an encoded entry; it points into the entry's bytes.
struct EntryView {
  std::string_view user_key;
  uint64_t tag = 0;
  std::string_view value;

  SequenceNumber sequence() const { return TagSequence(tag); }
  uint8_t type() const { return TagType(tag); }
  std::string_view internal_key() const {
    return std::string_view(user_key.data(), user_key.size() + 8);
  }
};

// The largest user key and value memrep accepts (varint32 lengths).
inline constexpr size_t kMaxUserKeySize = (uint64_t{1} << 32) - 1 - 8;
inline constexpr size_t kMaxValueSize = (uint64_t{1} << 32) - 1;

// Bytes EncodeEntry writes for this record (without any checksum).
size_t EncodedEntrySize(size_t user_key_size, size_t value_size);

// Writes the record at `dst`, which has EncodedEntrySize(...) bytes; returns the
// end. REQUIRES: sizes within the limits above, seq <= kMaxSequenceNumber.
char* EncodeEntry(char* dst, std::string_view user_key, SequenceNumber seq, uint8_t type,
                  std::string_view value);

// Decodes a well-formed entry (one that EncodeEntry or RocksDB wrote).
EntryView DecodeEntry(const char* entry);

// Appends `user_key | tag` to *out: the internal key of a lookup or seek target.
void AppendInternalKey(std::string* out, std::string_view user_key, SequenceNumber seq,
                       uint8_t type);

}  // namespace memrep
