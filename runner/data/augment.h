// Training-image augmentation on the host: the config's steps as a plan of augment_math, and
// one image augmented with it, byte for byte what the GPU's gather kernel makes.
#pragma once

#include <cstdint>
#include <vector>

#include "runner/data/augment_math.h"
#include "runner/data/dataset_spec.h"

namespace runner {

// The steps (at most kMaxAugmentSteps) with the run's augmentation seed; count 0 when empty.
augment_math::Plan augment_plan(const std::vector<AugmentStep>& steps, std::uint64_t seed);

// out (C, H, W) = image `index` of the dataset, in (C, H, W), as augmented in `epoch`.
void augment_image(const augment_math::Plan& plan, std::int64_t epoch, std::uint64_t index,
                   const std::uint8_t* in, std::uint8_t* out, int channels, int height, int width);

}  // namespace runner
