// training.ema: the exponential moving average of a program's weights and batch norm statistics
// (everything Program::parameters() holds), folded in every `every` steps as timm's ModelEmaV2
// and torchvision's AveragedModel(use_buffers=True): the first update copies the weights, each
// later one moves the average by (1 - decay) towards them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "backends/backend.h"
#include "runner/config/experiment.h"

namespace runner {

class WeightAverage {
 public:
  explicit WeightAverage(const EmaSpec& spec) : spec_(spec) {}

  // After the run's step `steps_done` (counted over the whole run, resumed epochs included):
  // folds the program's weights in when steps_done is a multiple of `every`.
  void after_step(std::int64_t steps_done, const Program& program);
  // Folds `weights` in (the first call copies them).
  void update(const std::vector<HostTensor>& weights);

  bool empty() const { return average_.empty(); }
  const std::vector<HostTensor>& tensors() const { return average_; }
  // A resumed run continues the average it saved.
  void restore(std::vector<HostTensor> tensors) { average_ = std::move(tensors); }

  // Runs `use` with the average loaded into `program`, then loads the program's own weights
  // back (both exactly: the tensors are copied, not recomputed).
  void with_average(Program& program, const std::function<void()>& use) const;

 private:
  EmaSpec spec_;
  std::vector<HostTensor> average_;
};

// The average's file beside a checkpoint: `net.safetensors` -> `net.ema.safetensors`.
std::filesystem::path average_checkpoint_path(std::filesystem::path checkpoint);

}  // namespace runner
