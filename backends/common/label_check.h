// Labels checked against the model's outputs before a loss reads them: an out-of-range label
// would index past the logits (heap corruption on the CPU, a bad read on the GPU).
#pragma once

#include <cstdint>
#include <string>

namespace runner {

// A UserError naming the first label outside 0..classes-1; `what` names the images
// ("image {} of a batch", "training image {}") with {} for the index.
void check_labels(const std::int32_t* labels, std::int64_t count, int classes,
                  const std::string& what);

}  // namespace runner
