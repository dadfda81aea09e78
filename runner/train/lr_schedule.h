// The learning rate of each training step under training.schedule: pure arithmetic, checked
// against PyTorch's schedulers (tests/train/lr_schedule_golden.json).
//
// Steps count from 0 over the whole run (a resumed run continues the count); with E steps per
// epoch and T = epochs * E steps in all, base = the optimizer's lr, e = floor(s / E):
//   constant   base
//   step       base * gamma^floor(e / step_size)             (StepLR, stepped once per epoch)
//   multistep  base * gamma^(milestones <= e)                (MultiStepLR, once per epoch)
//   cosine     min_lr + (base - min_lr) * (1 + cos(pi s / T)) / 2   (CosineAnnealingLR,
//              T_max = T, stepped per step)
//   one_cycle  OneCycleLR(max_lr = base, total_steps = T, pct_start, div_factor,
//              final_div_factor, anneal_strategy cos, three_phase false), stepped per step;
//              with cycle_momentum, the momentum (Adam's beta1) goes from max_momentum to
//              base_momentum and back on the same two phases, as OneCycleLR's
// A warm-up of W = round(warmup.epochs * E) steps multiplies the scheduled value at step s < W
// by start_factor + (1 - start_factor) * s / W (LinearLR(start_factor, 1, total_iters = W)).
#pragma once

#include <cstdint>
#include <optional>

#include "runner/config/schedule_spec.h"

namespace runner {

class LearningRateSchedule {
 public:
  // steps_per_epoch and epochs >= 1.
  LearningRateSchedule(const ScheduleSpec& spec, double lr, std::int64_t steps_per_epoch,
                       int epochs);

  // The learning rate of step `step` (0-based, over the whole run).
  double at(std::int64_t step) const;
  // The momentum (SGD's, or Adam's beta1) of step `step` where the schedule sets it (one_cycle
  // with cycle_momentum; the warm-up leaves it alone), else nothing: the optimizer's stays.
  std::optional<double> momentum(std::int64_t step) const;
  std::int64_t warmup_steps() const { return warmup_steps_; }

 private:
  double scheduled(std::int64_t step) const;  // without the warm-up
  double one_cycle(std::int64_t step, double start, double turn, double end) const;

  ScheduleSpec spec_;
  double lr_;
  std::int64_t steps_per_epoch_;
  std::int64_t total_steps_;
  std::int64_t warmup_steps_;
};

}  // namespace runner
