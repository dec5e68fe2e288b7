// RadixSortBy: a stable least-significant-byte-first radix sort of items by
// a 64-bit key, for the background sorts of runs and column blocks (whose
// keys are 8-byte order-preserving prefixes: a comparison sort of them costs
// a mispredicted branch per comparison).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace memrep::util {

// Sorts v[0, n) by key(item), ascending; `buffer` has room for n items. Each
// byte's pass is stable, so after the last (most significant) one the items
// are in key order, ties in their first order; a byte every key shares is
// skipped (its pass would move nothing).
template <typename T, typename KeyOf>
void RadixSortBy(T* v, T* buffer, size_t n, KeyOf key) {
  if (n == 0) return;
  T* from = v;
  T* to = buffer;
  for (int shift = 0; shift < 64; shift += 8) {
    std::array<size_t, 256> count{};
    for (size_t i = 0; i < n; ++i) ++count[(key(from[i]) >> shift) & 0xff];
    if (count[(key(from[0]) >> shift) & 0xff] == n) continue;
    size_t sum = 0;
    for (size_t& c : count) {
      const size_t here = c;
      c = sum;
      sum += here;
    }
    for (size_t i = 0; i < n; ++i) to[count[(key(from[i]) >> shift) & 0xff]++] = from[i];
    std::swap(from, to);
  }
  if (from != v) std::copy(from, from + n, v);
}

}  // namespace memrep::util
