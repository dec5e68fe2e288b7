#include "key_generator.h"

#include <cmath>
#include <numeric>
#include <utility>

namespace memrep::bench {

uint64_t StreamSeed(uint64_t seed, uint64_t purpose, uint64_t thread) {
  Random64 mix(seed ^ (purpose * 0x9e3779b97f4a7c15ull) ^ (thread * 0xc2b2ae3d27d4eb4full));
  return mix.Next();
}

KeyChooser::KeyChooser(KeyDistribution distribution, uint64_t n, double theta)
    : distribution_(distribution), n_(n) {
  if (distribution_ != KeyDistribution::kZipfian) return;
  theta_ = theta;
  for (uint64_t i = 1; i <= n_; ++i) zeta_n_ += 1.0 / std::pow(static_cast<double>(i), theta_);
  const double zeta_2 = 1.0 + 1.0 / std::pow(2.0, theta_);
  alpha_ = 1.0 / (1.0 - theta_);
  eta_ = (1.0 - std::pow(2.0 / static_cast<double>(n_), 1.0 - theta_)) / (1.0 - zeta_2 / zeta_n_);
  half_pow_theta_ = 1.0 + std::pow(0.5, theta_);
  // Two large primes: n is a multiple of at most one of them below 2^60.
  scatter_ = n_ % 1000000007ull != 0 ? 1000000007ull : 998244353ull;
}

uint64_t KeyChooser::NextZipfian(Random64& rng) const {
  const double u = rng.NextDouble();
  const double uz = u * zeta_n_;
  uint64_t rank;
  if (uz < 1.0) {
    rank = 0;
  } else if (uz < half_pow_theta_) {
    rank = 1;
  } else {
    rank = static_cast<uint64_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
  }
  if (rank >= n_) rank = n_ - 1;
  return static_cast<uint64_t>((static_cast<unsigned __int128>(rank) * scatter_) % n_);
}

std::vector<uint32_t> ShuffledIndices(uint64_t n, uint64_t seed) {
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), uint32_t{0});
  Random64 rng(seed);
  for (uint64_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.Uniform(i)]);
  return order;
}

}  // namespace memrep::bench
