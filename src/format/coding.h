// Little-endian fixed-width and varint32 codecs for the entry format.
#pragma once

#include <cstdint>
#include <cstring>

namespace memrep::format {

inline void EncodeFixed64(char* dst, uint64_t v) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "memrep assumes a little-endian host");
  std::memcpy(dst, &v, 8);
}

inline uint64_t DecodeFixed64(const char* src) {
  uint64_t v;
  std::memcpy(&v, src, 8);
  return v;
}

inline int VarintLength(uint64_t v) {
  int len = 1;
  while (v >= 128) {
    v >>= 7;
    ++len;
  }
  return len;
}

inline char* EncodeVarint32(char* dst, uint32_t v) {
  auto* p = reinterpret_cast<unsigned char*>(dst);
  while (v >= 128) {
    *p++ = static_cast<unsigned char>(v | 128);
    v >>= 7;
  }
  *p++ = static_cast<unsigned char>(v);
  return reinterpret_cast<char*>(p);
}

// Decodes a varint32 from a buffer known to hold a well-formed one.
inline const char* DecodeVarint32(const char* p, uint32_t* v) {
  uint32_t byte = static_cast<unsigned char>(*p);
  if (byte < 128) {  // the common case: a length below 128
    *v = byte;
    return p + 1;
  }
  uint32_t result = 0;
  for (int shift = 0; shift <= 28; shift += 7) {
    byte = static_cast<unsigned char>(*p++);
    result |= (byte & 127) << shift;
    if (byte < 128) break;
  }
  *v = result;
  return p;
}

// Decodes a varint32 from [p, limit); nullptr if it is truncated or too long.
inline const char* DecodeVarint32Checked(const char* p, const char* limit, uint32_t* v) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28 && p < limit; shift += 7) {
    uint32_t byte = static_cast<unsigned char>(*p++);
    result |= (byte & 127) << shift;
    if (byte < 128) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

}  // namespace memrep::format
