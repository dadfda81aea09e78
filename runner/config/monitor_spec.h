// What a run watches on its validation set to stop early (training.early_stopping) and to keep
// its best weights (checkpoint.monitor), with Lightning's names: EarlyStopping, ModelCheckpoint.
// A monitor is "val_" and a figure of the validation set: val_accuracy, val_loss or a metric's
// (val_top5_accuracy, val_balanced_accuracy, val_macro_f1: runner/metrics/metric_kind.h).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace runner {

using Monitor = std::string;
enum class MonitorMode { max, min };

inline constexpr std::string_view kValidationPrefix = "val_";
inline constexpr std::array<std::pair<MonitorMode, std::string_view>, 2> kMonitorModeNames = {
    {{MonitorMode::max, "max"}, {MonitorMode::min, "min"}}};

inline std::string_view monitor_name(const Monitor& monitor) {
  return monitor;
}
inline std::string_view monitor_mode_name(MonitorMode mode) {
  return mode == MonitorMode::max ? "max" : "min";
}
// The validation set's figure a monitor names: "accuracy" for val_accuracy.
inline std::string_view monitored_figure(const Monitor& monitor) {
  return std::string_view(monitor).substr(std::min(monitor.size(), kValidationPrefix.size()));
}

// training.ema's average is watched by "val_ema_" and a figure (val_ema_accuracy).
inline constexpr std::string_view kAveragePrefix = "ema_";
inline bool watches_average(const Monitor& monitor) {
  return monitored_figure(monitor).substr(0, kAveragePrefix.size()) == kAveragePrefix;
}
// The figure of the evaluated model: "accuracy" for val_accuracy and for val_ema_accuracy.
inline std::string_view model_figure(const Monitor& monitor) {
  const std::string_view figure = monitored_figure(monitor);
  return watches_average(monitor) ? figure.substr(kAveragePrefix.size()) : figure;
}

// The mode a monitor has when the config gives none: a loss falls, every other figure rises.
inline MonitorMode default_mode(std::string_view figure_name) {
  const std::string_view loss = "_loss";
  const bool is_loss = figure_name.size() >= loss.size() &&
                       figure_name.substr(figure_name.size() - loss.size()) == loss;
  return is_loss ? MonitorMode::min : MonitorMode::max;
}

// How a monitored or searched figure reads: a loss, or a share from 0 to 1 (every other one).
inline const char* figure_unit(std::string_view figure_name) {
  return default_mode(figure_name) == MonitorMode::min ? "loss" : "share";
}

struct MonitorSpec {
  Monitor monitor = "val_accuracy";
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
