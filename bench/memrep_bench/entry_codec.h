// The bench's keys, values, entries and lookup keys, in the formats a rep
// meets inside a RocksDB MemTable.
//
// Key: a key *number* as 8 bytes big-endian, then zero bytes up to key_size,
// so that numeric order is byte order and sequential inserts are sorted.
// With a shared prefix of N bytes (--shared_prefix), every key is instead N
// bytes of one fixed text (kSharedPrefixText, repeated) followed by the number
// big-endian in the remaining key_size - N bytes, zero-padded on the left:
//
//   shared_prefix == 0:  number (8 bytes, big-endian) | zeros
//   shared_prefix == N:  prefix text (N bytes) | zeros | number (big-endian)
//
// Either way byte order is numeric order, and Decode recovers the number.
// Entry: a row, memrep's one codec of RocksDB's memtable record
// (include/memrep/entry.h), byte for byte:
//
//   varint32 (key_size + 8) | user key | fixed64 (seq << 8 | type) | varint32 item_size | value
//
// Value: item_size bytes of a fixed pseudo-random pool, starting at an offset
// chosen by the sequence, so a reader can tell which version it was handed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "memrep/entry.h"
#include "rocksdb_compat.h"

namespace memrep::bench {

// Bytes of the key number without a shared prefix (at the key's start).
inline constexpr uint32_t kKeyNumberBytes = 8;
// With a shared prefix, the fewest bytes left for the number: key numbers
// stay below 2^32 (--num_operations < 2^31, two numbers per key index).
inline constexpr uint32_t kMinSharedSuffixBytes = 4;
// The shared prefix's text, repeated to its length: printable, never zeros.
inline constexpr std::string_view kSharedPrefixText = "memrep/bench/shared/prefix/";

class KeyCodec {
 public:
  // REQUIRES: shared_prefix == 0 and key_size >= kKeyNumberBytes, or
  // shared_prefix > 0 and key_size - shared_prefix >= kMinSharedSuffixBytes.
  explicit KeyCodec(uint32_t key_size, uint32_t shared_prefix = 0);

  uint32_t key_size() const { return key_size_; }
  uint32_t shared_prefix() const { return static_cast<uint32_t>(prefix_.size()); }
  // The shared prefix's N bytes ("" without one).
  const std::string& prefix() const { return prefix_; }
  // Writes the key_size bytes of `number`'s user key at dst. REQUIRES: with
  // a shared prefix, `number` fits the key_size - N bytes after it.
  void Encode(uint64_t number, char* dst) const;
  std::string Make(uint64_t number) const;
  // The number of a user key made by Encode; false for any other key.
  bool Decode(std::string_view user_key, uint64_t* number) const;

 private:
  uint32_t key_size_;
  std::string prefix_;  // empty: the number leads the key
};

class ValuePool {
 public:
  ValuePool(uint32_t item_size, uint64_t seed);

  uint32_t item_size() const { return item_size_; }
  std::string_view ValueFor(SequenceNumber seq) const {
    return std::string_view(pool_.data() + seq % kOffsets, item_size_);
  }
  // Whether `value` is the one written with `seq`: its size and first bytes.
  bool Matches(std::string_view value, SequenceNumber seq) const;

 private:
  static constexpr size_t kOffsets = 256;
  uint32_t item_size_;
  std::string pool_;
};

// What an entry of the bench says, decoded.
struct DecodedEntry {
  bool ours = false;  // a user key KeyCodec made
  uint64_t key_number = 0;
  SequenceNumber seq = 0;
  uint8_t type = 0;
  std::string_view value;
};

// Writes entries. Not thread-safe: one per thread (it owns a key buffer).
class EntryWriter {
 public:
  EntryWriter(const KeyCodec& keys, const ValuePool& values);

  // Every bench entry has this size.
  size_t entry_size() const { return entry_size_; }
  // Writes the Put of `key_number` at `seq` at dst (entry_size() bytes).
  void Write(char* dst, uint64_t key_number, SequenceNumber seq);

 private:
  const KeyCodec& keys_;
  const ValuePool& values_;
  size_t entry_size_;
  std::string key_;
};

DecodedEntry DecodeBenchEntry(const char* entry, const KeyCodec& keys);
// The same for an entry handed over as a view (the standalone face).
DecodedEntry DecodeBenchView(const EntryView& view, const KeyCodec& keys);

// A rocksdb::LookupKey for `key_number` at a snapshot, built without RocksDB's
// internal headers: the memtable key (varint32 length | user key | tag with
// memrep's ValueType::kForSeek) in a buffer, and the three pointers RocksDB's
// inline accessors read (LookupKeyLayout). Not copyable: it points into itself.
class LookupTarget {
 public:
  explicit LookupTarget(const KeyCodec& keys);
  LookupTarget(const LookupTarget&) = delete;
  LookupTarget& operator=(const LookupTarget&) = delete;

  void Set(uint64_t key_number, SequenceNumber snapshot = kMaxSequenceNumber);

  uint64_t key_number() const { return key_number_; }
  const ROCKSDB_NAMESPACE::LookupKey& lookup_key() const {
    return reinterpret_cast<const ROCKSDB_NAMESPACE::LookupKey&>(layout_);
  }
  // user key | tag
  ROCKSDB_NAMESPACE::Slice internal_key() const {
    return ROCKSDB_NAMESPACE::Slice(layout_.kstart,
                                    static_cast<size_t>(layout_.end - layout_.kstart));
  }
  // varint32 length | user key | tag
  const char* memtable_key() const { return layout_.start; }
  std::string_view user_key() const {
    return std::string_view(layout_.kstart, static_cast<size_t>(layout_.end - layout_.kstart) - 8);
  }

 private:
  const KeyCodec& keys_;
  uint64_t key_number_ = 0;
  std::string buffer_;
  rocksdb_plugin::LookupKeyLayout layout_{};
};

}  // namespace memrep::bench
