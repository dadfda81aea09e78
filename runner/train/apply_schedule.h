// Hands a program the learning rate, and the momentum where the schedule cycles it, of one
// training step: what the trainer and `runner bench` do before each step.
#pragma once

#include <cstdint>
#include <optional>

#include "backends/backend.h"
#include "runner/train/lr_schedule.h"

namespace runner {

struct StepSchedule {
  double learning_rate = 0;
  std::optional<double> momentum;  // one_cycle with cycle_momentum only
};

inline StepSchedule apply_schedule(const LearningRateSchedule& schedule, std::int64_t step,
                                   Program& program) {
  StepSchedule values{schedule.at(step), schedule.momentum(step)};
  program.set_learning_rate(values.learning_rate);
  if (values.momentum) program.set_momentum(*values.momentum);
  return values;
}

}  // namespace runner
