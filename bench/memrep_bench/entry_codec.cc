#include "entry_codec.h"

#include <algorithm>
#include <cstring>

#include "format/coding.h"
#include "key_generator.h"

namespace memrep::bench {

KeyCodec::KeyCodec(uint32_t key_size, uint32_t shared_prefix) : key_size_(key_size) {
  prefix_.reserve(shared_prefix);
  while (prefix_.size() < shared_prefix) {
    prefix_.append(kSharedPrefixText.substr(0, shared_prefix - prefix_.size()));
  }
}

void KeyCodec::Encode(uint64_t number, char* dst) const {
  const uint64_t big_endian = __builtin_bswap64(number);
  if (prefix_.empty()) {
    std::memcpy(dst, &big_endian, kKeyNumberBytes);
    std::memset(dst + kKeyNumberBytes, 0, key_size_ - kKeyNumberBytes);
    return;
  }
  // prefix | zeros | the number's low bytes, right-aligned.
  const size_t suffix = key_size_ - prefix_.size();
  const size_t number_bytes = std::min<size_t>(suffix, sizeof(big_endian));
  std::memcpy(dst, prefix_.data(), prefix_.size());
  std::memset(dst + prefix_.size(), 0, suffix - number_bytes);
  std::memcpy(dst + key_size_ - number_bytes,
              reinterpret_cast<const char*>(&big_endian) + sizeof(big_endian) - number_bytes,
              number_bytes);
}

std::string KeyCodec::Make(uint64_t number) const {
  std::string key(key_size_, '\0');
  Encode(number, key.data());
  return key;
}

bool KeyCodec::Decode(std::string_view user_key, uint64_t* number) const {
  if (user_key.size() != key_size_) return false;
  if (prefix_.empty()) {
    for (size_t i = kKeyNumberBytes; i < key_size_; ++i) {
      if (user_key[i] != '\0') return false;
    }
    uint64_t big_endian;
    std::memcpy(&big_endian, user_key.data(), kKeyNumberBytes);
    *number = __builtin_bswap64(big_endian);
    return true;
  }
  if (!user_key.starts_with(prefix_)) return false;
  const size_t suffix = key_size_ - prefix_.size();
  const size_t number_bytes = std::min<size_t>(suffix, sizeof(uint64_t));
  for (size_t i = prefix_.size(); i < key_size_ - number_bytes; ++i) {
    if (user_key[i] != '\0') return false;
  }
  uint64_t value = 0;
  for (size_t i = key_size_ - number_bytes; i < key_size_; ++i) {
    value = (value << 8) | static_cast<unsigned char>(user_key[i]);
  }
  *number = value;
  return true;
}

ValuePool::ValuePool(uint32_t item_size, uint64_t seed) : item_size_(item_size) {
  pool_.resize(item_size + kOffsets);
  Random64 rng(seed ^ 0x76616c756573ull);  // "values"
  for (char& c : pool_) c = static_cast<char>(rng.Next() >> 56);
}

bool ValuePool::Matches(std::string_view value, SequenceNumber seq) const {
  if (value.size() != item_size_) return false;
  const size_t checked = std::min<size_t>(item_size_, 8);
  return checked == 0 || std::memcmp(value.data(), pool_.data() + seq % kOffsets, checked) == 0;
}

EntryWriter::EntryWriter(const KeyCodec& keys, const ValuePool& values)
    : keys_(keys),
      values_(values),
      entry_size_(RowSize(keys.key_size(), values.item_size())),
      key_(keys.key_size(), '\0') {}

void EntryWriter::Write(char* dst, uint64_t key_number, SequenceNumber seq) {
  keys_.Encode(key_number, key_.data());
  EncodeRow(dst, EntryView::Of(key_, seq, ValueType::kValue, values_.ValueFor(seq)));
}

DecodedEntry DecodeBenchEntry(const char* entry, const KeyCodec& keys) {
  return DecodeBenchView(DecodeRow(entry), keys);
}

DecodedEntry DecodeBenchView(const EntryView& view, const KeyCodec& keys) {
  DecodedEntry out;
  out.ours = keys.Decode(view.user_key, &out.key_number);
  out.seq = view.sequence();
  out.type = view.type();
  out.value = view.value;
  return out;
}

LookupTarget::LookupTarget(const KeyCodec& keys) : keys_(keys) {
  // varint32 length (at most 5 bytes) | user key | tag
  buffer_.resize(5 + keys.key_size() + 8);
}

void LookupTarget::Set(uint64_t key_number, SequenceNumber snapshot) {
  key_number_ = key_number;
  char* start = buffer_.data();
  char* p = format::EncodeVarint32(start, keys_.key_size() + 8);
  layout_.start = start;
  layout_.kstart = p;
  keys_.Encode(key_number, p);
  p += keys_.key_size();
  format::EncodeFixed64(p, PackTag(snapshot, static_cast<uint8_t>(ValueType::kForSeek)));
  layout_.end = p + 8;
}

}  // namespace memrep::bench
