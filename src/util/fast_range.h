// A hash's place in a table of any size, without a division: the low 32
// bits of the hash scaled to the count (the high half of their product), so
// every count spreads keys evenly and no table rounds to a power of two.
#pragma once

#include <cstdint>

namespace memrep::util {

// The slot of `hash` in a table of `count` slots. REQUIRES: count <= 2^32.
inline uint64_t FastRange32(uint64_t hash, uint64_t count) {
  return ((hash & 0xffffffffu) * count) >> 32;
}

// The slots of a table of `to` slots that the hashes of slot `slot` of a
// table of `from` slots land in: [*first, *last]. When `to` is a multiple
// of `from`, these are slot * (to / from) onwards; any two counts work.
// REQUIRES: slot < from; from, to <= 2^32.
inline void SlotsAcross(uint64_t slot, uint64_t from, uint64_t to, uint64_t* first,
                        uint64_t* last) {
  using U128 = __uint128_t;  // the builtin name: no -pedantic warning
  // The least 32-bit hash that lands in `slot`, and the least past it.
  const U128 lo = ((U128{slot} << 32) + from - 1) / from;
  U128 hi = ((U128{slot + 1} << 32) + from - 1) / from;
  if (hi > (U128{1} << 32)) hi = U128{1} << 32;
  *first = static_cast<uint64_t>((lo * to) >> 32);
  *last = static_cast<uint64_t>(((hi - 1) * to) >> 32);
}

}  // namespace memrep::util
