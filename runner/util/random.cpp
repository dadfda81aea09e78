// Portable seeded randomness for shuffling and parameter initialisation.
#include "runner/util/random.h"

#include <cmath>
#include <numeric>

namespace runner {

std::uint64_t Random::below(std::uint64_t bound) {
  unsigned __int128 product = static_cast<unsigned __int128>(next_u64()) * bound;
  auto low = static_cast<std::uint64_t>(product);
  if (low < bound) {
    std::uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      product = static_cast<unsigned __int128>(next_u64()) * bound;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

double Random::normal() {
  const double u1 = 1.0 - next_unit();  // (0, 1]: log stays finite
  const double u2 = next_unit();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

std::uint64_t derive_seed(std::uint64_t base, std::uint64_t stream) {
  Random mix(base ^ (stream * 0xD1B54A32D192ED03ull));
  return mix.next_u64();
}

std::vector<std::uint32_t> shuffled_indices(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  Random random(seed);
  for (std::size_t i = n; i > 1; --i) {
    std::size_t j = random.below(i);
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

}  // namespace runner
