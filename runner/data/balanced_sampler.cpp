// The balanced sampler's draws.
#include "runner/data/balanced_sampler.h"

#include <algorithm>

#include "runner/util/random.h"

namespace runner {

std::vector<std::uint32_t> balanced_order(const std::vector<std::int32_t>& labels,
                                          std::uint64_t seed, int epoch) {
  if (labels.empty()) return {};
  const std::int32_t classes = *std::max_element(labels.begin(), labels.end()) + 1;
  std::vector<std::vector<std::uint32_t>> of_class(static_cast<std::size_t>(classes));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    of_class[static_cast<std::size_t>(labels[i])].push_back(static_cast<std::uint32_t>(i));
  }
  std::erase_if(of_class, [](const auto& images) { return images.empty(); });
  Random random(derive_seed(seed, static_cast<std::uint64_t>(epoch)));
  std::vector<std::uint32_t> order(labels.size());
  for (std::uint32_t& drawn : order) {
    const auto& images = of_class[random.below(of_class.size())];
    drawn = images[random.below(images.size())];
  }
  return order;
}

}  // namespace runner
