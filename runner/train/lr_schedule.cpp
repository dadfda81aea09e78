// Learning-rate schedules, in PyTorch's closed forms.
#include "runner/train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace runner {
namespace {

constexpr double kPi = 3.14159265358979323846;

// PyTorch's OneCycleLR._annealing_cos: from `start` at pct 0 to `end` at pct 1.
double anneal_cos(double start, double end, double pct) {
  return end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1);
}

}  // namespace

LearningRateSchedule::LearningRateSchedule(const ScheduleSpec& spec, double lr,
                                           std::int64_t steps_per_epoch, int epochs)
    : spec_(spec),
      lr_(lr),
      steps_per_epoch_(std::max<std::int64_t>(1, steps_per_epoch)),
      total_steps_(steps_per_epoch_ * std::max(1, epochs)),
      warmup_steps_(std::llround(spec.warmup_epochs * static_cast<double>(steps_per_epoch_))) {}

double LearningRateSchedule::at(std::int64_t step) const {
  // Past the last step (never in a run) the schedule stays where it ended.
  step = std::clamp<std::int64_t>(step, 0, total_steps_ - 1);
  const double value = scheduled(step);
  if (step >= warmup_steps_) return value;
  const double start = spec_.warmup_start_factor;
  return value *
         (start + (1 - start) * static_cast<double>(step) / static_cast<double>(warmup_steps_));
}

double LearningRateSchedule::scheduled(std::int64_t step) const {
  const std::int64_t epoch = step / steps_per_epoch_;
  switch (spec_.type) {
    case ScheduleType::constant:
      return lr_;
    case ScheduleType::step:
      return lr_ * std::pow(spec_.gamma, static_cast<double>(epoch / spec_.step_size));
    case ScheduleType::multistep: {
      auto passed = std::count_if(spec_.milestones.begin(), spec_.milestones.end(),
                                  [&](int milestone) { return milestone <= epoch; });
      return lr_ * std::pow(spec_.gamma, static_cast<double>(passed));
    }
    case ScheduleType::cosine:
      return spec_.min_lr + (lr_ - spec_.min_lr) *
                                (1 + std::cos(kPi * static_cast<double>(step) /
                                              static_cast<double>(total_steps_))) /
                                2;
    case ScheduleType::one_cycle: {
      const double initial = lr_ / spec_.div_factor;
      return one_cycle(step, initial, lr_, initial / spec_.final_div_factor);
    }
  }
  return lr_;
}

std::optional<double> LearningRateSchedule::momentum(std::int64_t step) const {
  if (spec_.type != ScheduleType::one_cycle || !spec_.cycle_momentum) return std::nullopt;
  step = std::clamp<std::int64_t>(step, 0, total_steps_ - 1);
  return one_cycle(step, spec_.max_momentum, spec_.base_momentum, spec_.max_momentum);
}

// Two phases as in OneCycleLR.get_lr: from `start` to `turn` until step pct_start * T - 1, then
// to `end` at step T - 1 (pct_start < 1, so the second phase is never empty). A first phase that
// ends at step 0 stays at `start` there (PyTorch divides 0 by 0).
double LearningRateSchedule::one_cycle(std::int64_t step, double start, double turn,
                                       double end) const {
  const double s = static_cast<double>(step);
  const double rise_end = spec_.pct_start * static_cast<double>(total_steps_) - 1;
  const double fall_end = static_cast<double>(total_steps_) - 1;
  if (s <= rise_end) return rise_end > 0 ? anneal_cos(start, turn, s / rise_end) : start;
  return anneal_cos(turn, end, (s - rise_end) / (fall_end - rise_end));
}

}  // namespace runner
