// A portable seeded random source: the same seed gives the same numbers on every platform,
// unlike std::uniform_*_distribution, whose algorithms are left to the standard library.
#pragma once

#include <cstdint>
#include <vector>

namespace runner {

class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  // splitmix64: small, fast, statistically fine for shuffling and initialisation.
  std::uint64_t next_u64() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double next_unit() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * next_unit(); }
  // Uniform integer in [0, bound), without modulo bias (Lemire's method).
  std::uint64_t below(std::uint64_t bound);
  // Standard normal (Box-Muller on two uniforms; one value per call, the same on every platform).
  double normal();

 private:
  std::uint64_t state_;
};

// A seed derived from a base seed and a stream id, so that streams do not overlap.
std::uint64_t derive_seed(std::uint64_t base, std::uint64_t stream);

// Fisher-Yates permutation of 0..n-1.
std::vector<std::uint32_t> shuffled_indices(std::size_t n, std::uint64_t seed);

}  // namespace runner
