#include <cstring>

#include "format/coding.h"
#include "memrep/entry.h"
#include "util/assert.h"

namespace memrep {

size_t RowSize(size_t user_key_size, size_t value_size) {
  const size_t internal_key_size = user_key_size + 8;
  return format::VarintLength(internal_key_size) + internal_key_size +
         format::VarintLength(value_size) + value_size;
}

char* EncodeRow(char* dst, const EntryView& entry) {
  const std::string_view key = entry.user_key, value = entry.value;
  MEMREP_ASSERT(key.size() <= kMaxUserKeySize && value.size() <= kMaxValueSize);
  char* p = format::EncodeVarint32(dst, static_cast<uint32_t>(key.size() + 8));
  // An empty view may have a null data(): memcpy must not see it.
  if (!key.empty()) std::memcpy(p, key.data(), key.size());
  p += key.size();
  format::EncodeFixed64(p, entry.tag);
  p += 8;
  p = format::EncodeVarint32(p, static_cast<uint32_t>(value.size()));
  if (!value.empty()) std::memcpy(p, value.data(), value.size());
  return p + value.size();
}

EntryView DecodeRow(const char* row) {
  uint32_t internal_key_size;
  const char* p = format::DecodeVarint32(row, &internal_key_size);
  EntryView view;
  view.user_key = std::string_view(p, internal_key_size - 8);
  p += internal_key_size;
  view.tag = format::DecodeFixed64(p - 8);
  uint32_t value_size;
  p = format::DecodeVarint32(p, &value_size);
  view.value = std::string_view(p, value_size);
  return view;
}

void AppendInternalKey(std::string* out, std::string_view user_key, SequenceNumber seq,
                       uint8_t type) {
  out->append(user_key);
  char tag[8];
  format::EncodeFixed64(tag, PackTag(seq, type));
  out->append(tag, 8);
}

}  // namespace memrep
