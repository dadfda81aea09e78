// The optimizer's step count as a checkpoint tensor, and the dtype check of uploaded tensors.
#include "backends/common/checkpoint_tensors.h"

#include <fmt/format.h>

#include <cmath>

#include "runner/util/errors.h"

namespace runner {

namespace {
// Older checkpoints stored the step as a float, exact up to 2^24.
constexpr float kLargestExactFloatStep = 16777216.f;
}  // namespace

HostTensor optimizer_step_tensor(std::int64_t step) {
  return int64_tensor(kOptimizerStepName, {1}, {step});
}

std::int64_t read_optimizer_step(const TensorLookup& index) {
  const HostTensor& t = index.require(kOptimizerStepName);
  if (t.element_count() != 1) {
    throw UserError(
        fmt::format("tensor '{}' holds {} values, expected 1", t.name, t.element_count()));
  }
  if (t.dtype == TensorDtype::i64) {
    if (t.integers[0] < 0) {
      throw UserError(
          fmt::format("tensor '{}' is {}, expected a count >= 0", t.name, t.integers[0]));
    }
    return t.integers[0];
  }
  const float step = t.values[0];
  if (!(step >= 0 && step <= kLargestExactFloatStep) || std::floor(step) != step) {
    throw UserError(fmt::format("tensor '{}' is {}, expected a whole number from 0 to {}", t.name,
                                step, kLargestExactFloatStep));
  }
  return static_cast<std::int64_t>(step);
}

const HostTensor& require_f32(const HostTensor& tensor) {
  if (tensor.dtype != TensorDtype::f32) {
    throw UserError(fmt::format("tensor '{}' holds int64 values, expected float32", tensor.name));
  }
  return tensor;
}

const HostTensor& require_shape(const HostTensor& tensor, const std::vector<std::int64_t>& dims) {
  if (tensor.dims != dims) {
    throw UserError(fmt::format("tensor '{}' has shape ({}), the model expects ({})", tensor.name,
                                fmt::join(tensor.dims, ", "), fmt::join(dims, ", ")));
  }
  return tensor;
}

}  // namespace runner
