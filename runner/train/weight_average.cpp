// The weights' moving average (weight_average.h), in single precision as the weights are: the
// update is timm's lerp, average += (1 - decay) x (weights - average).
#include "runner/train/weight_average.h"

#include <stdexcept>

namespace runner {

void WeightAverage::after_step(std::int64_t steps_done, const Program& program) {
  if (steps_done % spec_.every == 0) update(program.parameters());
}

void WeightAverage::update(const std::vector<HostTensor>& weights) {
  if (average_.empty()) {
    average_ = weights;
    return;
  }
  if (weights.size() != average_.size()) {
    throw std::logic_error("weight average: the program's tensors changed");
  }
  const auto rate = static_cast<float>(1.0 - spec_.decay);
  for (std::size_t t = 0; t < weights.size(); ++t) {
    std::vector<float>& average = average_[t].values;
    const std::vector<float>& current = weights[t].values;
    if (average.size() != current.size()) {
      throw std::logic_error("weight average: tensor " + weights[t].name + " changed its size");
    }
    for (std::size_t i = 0; i < average.size(); ++i) average[i] += rate * (current[i] - average[i]);
    average_[t].integers = weights[t].integers;  // counters are not averaged
  }
}

void WeightAverage::with_average(Program& program, const std::function<void()>& use) const {
  const std::vector<HostTensor> own = program.parameters();
  program.load_parameters(average_);
  try {
    use();
  } catch (...) {
    program.load_parameters(own);
    throw;
  }
  program.load_parameters(own);
}

std::filesystem::path average_checkpoint_path(std::filesystem::path checkpoint) {
  return checkpoint.replace_extension(".ema.safetensors");
}

}  // namespace runner
