// Entries, and the row: RocksDB's encoding of an entry.
//
// An *entry* is a user key, a sequence number, a type and a value. memrep's
// standalone face speaks EntryViews; each rep stores entries in whatever form
// suits it. Inside RocksDB, every entry is a *row*, byte for byte the record
// RocksDB's MemTable writes into the memory a rep hands out:
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

#include "memrep/export.h"

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

// An entry, by reference: the views point into memory someone else owns (a
// row, a caller's buffers, an iterator's key buffer).
struct EntryView {
  std::string_view user_key;
  uint64_t tag = 0;
  std::string_view value;

  static EntryView Of(std::string_view user_key, SequenceNumber seq, ValueType type,
                      std::string_view value) {
    return EntryView{user_key, PackTag(seq, static_cast<uint8_t>(type)), value};
  }
  SequenceNumber sequence() const { return TagSequence(tag); }
  uint8_t type() const { return TagType(tag); }
};

// The largest user key and value memrep accepts (varint32 lengths).
inline constexpr size_t kMaxUserKeySize = (uint64_t{1} << 32) - 1 - 8;
inline constexpr size_t kMaxValueSize = (uint64_t{1} << 32) - 1;

// Bytes EncodeRow writes for an entry with these sizes (without any checksum).
MEMREP_EXPORT size_t RowSize(size_t user_key_size, size_t value_size);

// Writes the entry as a row at `dst`, which has RowSize(...) bytes; returns
// the end. REQUIRES: sizes within the limits above.
MEMREP_EXPORT char* EncodeRow(char* dst, const EntryView& entry);

// Decodes a well-formed row (one that EncodeRow or RocksDB wrote). The view
// points into the row.
MEMREP_EXPORT EntryView DecodeRow(const char* row);

// Appends `user_key | tag` to *out: the internal key of a lookup or seek target.
MEMREP_EXPORT void AppendInternalKey(std::string* out, std::string_view user_key,
                                     SequenceNumber seq, uint8_t type);

}  // namespace memrep
