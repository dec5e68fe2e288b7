// Random numbers and key choices for memrep_bench. Everything is seeded, so
// every rep, and every repetition, meets the same keys in the same order.
#pragma once

#include <cstdint>
#include <vector>

namespace memrep::bench {

// SplitMix64: fast, small, good enough for choosing keys.
class Random64 {
 public:
  explicit Random64(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Uniform(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }
  // Uniform in [0, 1).
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

// A seed for one stream: the user's seed, what the stream is for, and its thread.
uint64_t StreamSeed(uint64_t seed, uint64_t purpose, uint64_t thread);

enum class KeyDistribution { kUniform, kZipfian };

// Draws indexes in [0, n) from a distribution.
//
// Zipfian: rank r has probability proportional to 1 / (r+1)^theta, drawn with
// the rejection-free method of Gray et al., "Quickly Generating
// Billion-Record Synthetic Databases" (SIGMOD 1994), as YCSB does. Ranks are
// then scattered over the key space by a multiplication modulo n, so the hot
// keys are not neighbours. Setup is O(n) (the zeta sum); a draw is O(1).
// Thread safety: const after construction; each thread passes its own Random64.
class KeyChooser {
 public:
  // REQUIRES: n > 0; for kZipfian, 0 < theta < 1.
  KeyChooser(KeyDistribution distribution, uint64_t n, double theta);

  uint64_t Next(Random64& rng) const {
    return distribution_ == KeyDistribution::kUniform ? rng.Uniform(n_) : NextZipfian(rng);
  }
  uint64_t n() const { return n_; }

 private:
  uint64_t NextZipfian(Random64& rng) const;

  KeyDistribution distribution_;
  uint64_t n_;
  double theta_ = 0, zeta_n_ = 0, alpha_ = 0, eta_ = 0, half_pow_theta_ = 0;
  uint64_t scatter_ = 1;  // coprime with n
};

// [0, n) in a random order. REQUIRES: n <= 2^32.
std::vector<uint32_t> ShuffledIndices(uint64_t n, uint64_t seed);

}  // namespace memrep::bench
