// dataset.sampler: balanced: each epoch draws as many images as the training split holds, with
// replacement, every class equally often (PyTorch's WeightedRandomSampler with weights
// 1 / count of the image's class): a class is drawn uniformly among those with images, then an
// image of it uniformly. Seeded per epoch.
#pragma once

#include <cstdint>
#include <vector>

namespace runner {

std::vector<std::uint32_t> balanced_order(const std::vector<std::int32_t>& labels,
                                          std::uint64_t seed, int epoch);

}  // namespace runner
