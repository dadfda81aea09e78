// Labels checked against the model's outputs before a loss reads them: an out-of-range label
// would index past the logits (heap corruption on the CPU, a bad read on the GPU); and a batch's
// mix checked before a program reads its box.
#pragma once

#include <cstdint>
#include <string>

#include "backends/common/batch_mix.h"

namespace runner {

// A UserError naming the first label outside 0..classes-1; `what` names the images
// ("image {} of a batch", "training image {}") with {} for the index.
void check_labels(const std::int32_t* labels, std::int64_t count, int classes,
                  const std::string& what);

// A logic_error where `mix` is not one a trainer makes: lam outside [0, 1], a cutmix box outside
// the (height, width) image, or mixing with a weighted loss (soft targets take the plain one).
void check_batch_mix(const batch_mix::BatchMix& mix, int height, int width, bool weighted_loss);

}  // namespace runner
