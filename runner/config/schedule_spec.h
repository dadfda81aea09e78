// training.schedule: how the learning rate changes over a run (the formulas are in
// runner/train/lr_schedule.h), as plain data read from the config.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace runner {

enum class ScheduleType { constant, step, multistep, cosine, one_cycle };

// The config's name: "constant", "step", "multistep", "cosine", "one_cycle".
const char* schedule_type_name(ScheduleType type);
std::optional<ScheduleType> parse_schedule_type(std::string_view name);

struct ScheduleSpec {
  ScheduleType type = ScheduleType::constant;
  int step_size = 1;                 // step: epochs between decays
  std::vector<int> milestones;       // multistep: the epochs (increasing) after which it decays
  double gamma = 0.1;                // step, multistep: the decay factor
  double min_lr = 0;                 // cosine: the learning rate at the end of the run
  double pct_start = 0.3;            // one_cycle: the share of the steps spent rising
  double div_factor = 25;            // one_cycle: the first lr is lr / div_factor
  double final_div_factor = 1e4;     // one_cycle: the last lr is the first / final_div_factor
  bool cycle_momentum = false;       // one_cycle: the momentum (Adam's beta1) moves against the lr
  double base_momentum = 0.85;       // one_cycle: its value at the lr's peak
  double max_momentum = 0.95;        // one_cycle: its value at the start and the end
  double warmup_epochs = 0;          // optional linear warm-up, may be fractional; 0: none
  double warmup_start_factor = 0.1;  // the warm-up's first factor on the scheduled lr
};

}  // namespace runner
