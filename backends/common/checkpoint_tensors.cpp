// The optimizer's step count as a checkpoint tensor.
#include "backends/common/checkpoint_tensors.h"

namespace runner {

HostTensor optimizer_step_tensor(std::int64_t step) {
  return {kOptimizerStepName, {1}, {static_cast<float>(step)}};
}

std::int64_t read_optimizer_step(const TensorLookup& index) {
  return static_cast<std::int64_t>(index.require(kOptimizerStepName).values.at(0));
}

}  // namespace runner
