// The one hash function of memrep: XXH3, 64 bits.
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <string_view>

namespace memrep::util {

inline uint64_t Hash(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

}  // namespace memrep::util
