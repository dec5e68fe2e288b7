// memrep_phased's keys and values: a phase's random keys, drawn before it is
// timed, and values that are a function of their key, so that every reader
// can check what it finds. Inline: the phases' timed loops call them.
#pragma once

#include <rocksdb/slice.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

#include "common/program_util.h"

namespace memrep::phased {

namespace rdb = ROCKSDB_NAMESPACE;

inline uint64_t KeyHash(std::string_view key) {
  using bench_program::Mix64;
  uint64_t h = Mix64(key.size());
  for (size_t at = 0; at < key.size(); at += 8) {
    uint64_t word = 0;
    std::memcpy(&word, key.data() + at, std::min<size_t>(8, key.size() - at));
    h = Mix64(h ^ word);
  }
  return h;
}

// Fills `n` bytes at `out` from `rng`.
inline void RandomBytes(std::mt19937_64* rng, char* out, size_t n) {
  for (size_t at = 0; at < n; at += 8) {
    const uint64_t word = (*rng)();
    std::memcpy(out + at, &word, std::min<size_t>(8, n - at));
  }
}

// One phase's keys, drawn before the phase is timed. Key i is bytes
// [i × key_size, (i + 1) × key_size).
class Keys {
 public:
  Keys(std::mt19937_64* rng, uint64_t count, uint64_t key_size)
      : key_size_(key_size), bytes_(count * key_size, '\0') {
    RandomBytes(rng, bytes_.data(), bytes_.size());
  }
  rdb::Slice operator[](uint64_t i) const {
    return rdb::Slice(bytes_.data() + i * key_size_, key_size_);
  }

 private:
  uint64_t key_size_;
  std::string bytes_;
};

// A value is a function of its key: one pattern drawn from --seed, its first
// 8 bytes (or fewer) replaced by a hash of the key. A key drawn twice thus
// has one value, and a reader can check any value it finds.
class Values {
 public:
  Values(uint64_t seed, uint64_t value_size) : pattern_(value_size, '\0') {
    std::mt19937_64 rng(bench_program::Mix64(seed ^ 0x76616c756573ULL));
    RandomBytes(&rng, pattern_.data(), pattern_.size());
  }
  // A buffer that Set() turns into a key's value.
  std::string Buffer() const { return pattern_; }
  void Set(rdb::Slice key, std::string* buffer) const {
    const uint64_t h = KeyHash(std::string_view(key.data(), key.size()));
    std::memcpy(buffer->data(), &h, HashBytes());
  }
  bool Matches(rdb::Slice key, rdb::Slice value) const {
    if (value.size() != pattern_.size()) return false;
    const uint64_t h = KeyHash(std::string_view(key.data(), key.size()));
    const size_t n = HashBytes();
    return std::memcmp(value.data(), &h, n) == 0 &&
           std::memcmp(value.data() + n, pattern_.data() + n, pattern_.size() - n) == 0;
  }

 private:
  size_t HashBytes() const { return std::min<size_t>(8, pattern_.size()); }
  std::string pattern_;
};

// The bytes of a key, for messages.
inline std::string Hex(rdb::Slice bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

}  // namespace memrep::phased
