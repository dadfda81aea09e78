// Early stopping and the best epoch, epoch by epoch.
#include "runner/train/model_selection.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "runner/util/bounded_json.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

constexpr int kMaxEpochs = 1'000'000;  // the schema's training.epochs maximum

void update(MonitorProgress& progress, double value, int epoch, bool improved) {
  if (improved) {
    progress = {value, epoch, 0};
  } else {
    ++progress.wait;
  }
}

nlohmann::json part_json(const MonitorProgress& p, const MonitorSpec& by) {
  return {{"monitor", monitor_name(by.monitor)},
          {"mode", monitor_mode_name(by.mode)},
          {"best", p.best ? nlohmann::json(*p.best) : nlohmann::json()},
          {"best_epoch", p.best_epoch},
          {"wait", p.wait}};
}

bool is_count(const nlohmann::json& value) {
  return value.is_number_integer() && value.get<std::int64_t>() >= 0 &&
         value.get<std::int64_t>() <= kMaxEpochs;
}

// One part of the metadata; fresh when absent or kept by another monitor.
MonitorProgress read_part(const nlohmann::json& all, const char* key, const MonitorSpec& by,
                          const std::string& file, std::vector<std::string>& notes) {
  if (!all.contains(key)) return {};
  const nlohmann::json& p = all[key];
  const bool valid = p.is_object() && p.value("monitor", nlohmann::json()).is_string() &&
                     p.value("mode", nlohmann::json()).is_string() && p.contains("best") &&
                     (p["best"].is_null() || p["best"].is_number()) &&
                     is_count(p.value("best_epoch", nlohmann::json())) &&
                     is_count(p.value("wait", nlohmann::json()));
  if (!valid) {
    throw UserError(
        fmt::format("{}: metadata selection.{}: not what the runner writes (monitor, "
                    "mode, best, best_epoch, wait)",
                    file, key));
  }
  const std::string monitor = p["monitor"], mode = p["mode"];
  if (monitor != monitor_name(by.monitor) || mode != monitor_mode_name(by.mode)) {
    notes.push_back(fmt::format("{}: its {} watched {} ({}), this config {} ({}); starting afresh",
                                file, key, monitor, mode, monitor_name(by.monitor),
                                monitor_mode_name(by.mode)));
    return {};
  }
  MonitorProgress progress;
  if (p["best"].is_number()) progress.best = p["best"].get<double>();
  progress.best_epoch = p["best_epoch"].get<int>();
  progress.wait = p["wait"].get<int>();
  return progress;
}

}  // namespace

MonitorSpec best_epoch_monitor(const Experiment& experiment) {
  if (experiment.checkpoint.monitor) return *experiment.checkpoint.monitor;
  if (experiment.training.early_stopping.enabled) return experiment.training.early_stopping.watch;
  return {"val_accuracy", MonitorMode::max};
}

bool improves(MonitorMode mode, double value, const std::optional<double>& best, double min_delta) {
  if (!std::isfinite(value)) return false;
  if (!best) return true;
  return mode == MonitorMode::max ? value - min_delta > *best : value + min_delta < *best;
}

double monitored_value(const Monitor& monitor, const Evaluation& validation,
                       const Evaluation* average) {
  const Evaluation* scored = watches_average(monitor) ? average : &validation;
  // Not a number where the figure is not defined on the set: never an improvement.
  if (!scored) return std::numeric_limits<double>::quiet_NaN();
  return figure_value(model_figure(monitor), *scored)
      .value_or(std::numeric_limits<double>::quiet_NaN());
}

ModelSelection::ModelSelection(const Experiment& experiment, SelectionState start)
    : stopping_(experiment.training.early_stopping),
      best_by_(best_epoch_monitor(experiment)),
      state_(std::move(start)) {}

EpochVerdict ModelSelection::epoch_done(int epoch, const Evaluation& validation,
                                        const Evaluation* average) {
  EpochVerdict verdict;
  const double value = monitored_value(best_by_.monitor, validation, average);
  verdict.new_best = improves(best_by_.mode, value, state_.best.best, 0);
  update(state_.best, value, epoch, verdict.new_best);
  if (stopping_.enabled) {
    const double watched = monitored_value(stopping_.watch.monitor, validation, average);
    MonitorProgress& es = state_.early_stopping;
    update(es, watched, epoch,
           improves(stopping_.watch.mode, watched, es.best, stopping_.min_delta));
    verdict.stop = stopped();
  }
  return verdict;
}

bool ModelSelection::stopped() const {
  return stopping_.enabled && state_.early_stopping.wait >= stopping_.patience;
}

std::string ModelSelection::stop_text() const {
  const MonitorProgress& es = state_.early_stopping;
  const std::string best = es.best ? fmt::format("best {:.4f} at epoch {}", *es.best, es.best_epoch)
                                   : std::string("no finite value yet");
  return fmt::format("{} did not improve by more than {} for {} epoch{} ({})",
                     monitor_name(stopping_.watch.monitor), stopping_.min_delta, es.wait,
                     es.wait == 1 ? "" : "s", best);
}

nlohmann::json selection_json(const SelectionState& state, const Experiment& experiment) {
  nlohmann::json out = {{"best", part_json(state.best, best_epoch_monitor(experiment))}};
  const EarlyStoppingSpec& stopping = experiment.training.early_stopping;
  if (stopping.enabled) out["early_stopping"] = part_json(state.early_stopping, stopping.watch);
  return out;
}

SelectionState read_selection(const std::string& text, const Experiment& experiment,
                              const std::string& file, std::vector<std::string>& notes) {
  SelectionState state;
  if (text.empty()) return state;
  const nlohmann::json all = parse_bounded_json(text, false);
  if (all.is_discarded() || !all.is_object()) {
    throw UserError(fmt::format("{}: metadata selection: not the JSON the runner writes", file));
  }
  state.best = read_part(all, "best", best_epoch_monitor(experiment), file, notes);
  const EarlyStoppingSpec& stopping = experiment.training.early_stopping;
  if (stopping.enabled) {
    state.early_stopping = read_part(all, "early_stopping", stopping.watch, file, notes);
  }
  return state;
}

}  // namespace runner
