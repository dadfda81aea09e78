// What a run watches on its validation set to stop early (training.early_stopping) and to keep
// its best weights (checkpoint.monitor), with Lightning's names: EarlyStopping, ModelCheckpoint.
#pragma once

#include <array>
#include <string_view>
#include <utility>

namespace runner {

enum class Monitor { val_accuracy, val_loss };
enum class MonitorMode { max, min };

inline constexpr std::array<std::pair<Monitor, std::string_view>, 2> kMonitorNames = {
    {{Monitor::val_accuracy, "val_accuracy"}, {Monitor::val_loss, "val_loss"}}};
inline constexpr std::array<std::pair<MonitorMode, std::string_view>, 2> kMonitorModeNames = {
    {{MonitorMode::max, "max"}, {MonitorMode::min, "min"}}};

inline std::string_view monitor_name(Monitor monitor) {
  return monitor == Monitor::val_accuracy ? "val_accuracy" : "val_loss";
}
inline std::string_view monitor_mode_name(MonitorMode mode) {
  return mode == MonitorMode::max ? "max" : "min";
}

// The mode a monitor has when the config gives none: an accuracy rises, a loss falls.
inline MonitorMode default_mode(Monitor monitor) {
  return monitor == Monitor::val_accuracy ? MonitorMode::max : MonitorMode::min;
}

struct MonitorSpec {
  Monitor monitor = Monitor::val_accuracy;
  MonitorMode mode = MonitorMode::max;
};

// Lightning's EarlyStopping(monitor, mode, patience, min_delta): an epoch improves when its
// value beats the best so far by more than min_delta; the run stops after `patience` epochs
// in a row without improvement.
struct EarlyStoppingSpec {
  bool enabled = false;
  MonitorSpec watch;
  int patience = 3;
  double min_delta = 0;
};

}  // namespace runner
