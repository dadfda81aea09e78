#include "runner/sweep/asha_trial.h"

#include <fmt/format.h>

#include <algorithm>

#include "runner/report/read_report.h"
#include "runner/sweep/rung_records.h"

namespace runner {

std::optional<double> asha_metric_of(const std::string& metric, const EpochRecord& epoch) {
  if (metric == "val_accuracy") return epoch.val_accuracy;
  if (metric == "val_loss") return epoch.val_loss;
  if (metric == "train_loss") return epoch.train_loss;
  const auto figure = epoch.figures.find(metric);  // a metric's (val_macro_f1)
  if (figure != epoch.figures.end()) return figure->second;
  return std::nullopt;
}

namespace {

// The point's training.epochs; 0 when its config does not say.
int epochs_of(const PlannedPoint& planned) {
  const nlohmann::json config = planned.config();
  if (!config.is_object() || !config.contains("training") || !config["training"].is_object())
    return 0;
  const nlohmann::json value = config["training"].value("epochs", nlohmann::json());
  return value.is_number_integer() ? value.get<int>() : 0;
}

}  // namespace

std::string asha_plan_line(const AshaSpec& spec, const std::vector<PlannedPoint>& plan) {
  for (const PlannedPoint& planned : plan) {
    if (planned.valid) return asha_line(spec, epochs_of(planned));
  }
  return asha_line(spec, spec.max_epochs.value_or(0));
}

std::function<std::string(const EpochRecord&)> asha_gate(const AshaSpec& spec,
                                                         const std::filesystem::path& sweep_dir,
                                                         const PlannedPoint& planned) {
  const std::vector<int> rungs = asha_rungs(spec, epochs_of(planned));
  return [spec, sweep_dir, rungs, id = planned.point.id,
          sha = planned.point_sha](const EpochRecord& epoch) -> std::string {
    if (std::find(rungs.begin(), rungs.end(), epoch.epoch) == rungs.end()) return "";
    RungEntry entry{id, sha, epoch.epoch, asha_metric_of(spec.metric, epoch), false};
    const RungVerdict verdict = record_at_rung(sweep_dir, spec, entry);
    return verdict.continued ? ""
                             : "asha: " + verdict_text(spec, epoch.epoch, entry.value, verdict);
  };
}

RecordAsha asha_report_block(const AshaSpec& spec, const PlannedPoint& planned) {
  RecordAsha block;
  block.metric = spec.metric;
  block.mode = spec.maximize ? MonitorMode::max : MonitorMode::min;
  block.rungs = asha_rungs(spec, epochs_of(planned));
  block.reduction_factor = spec.reduction_factor;
  return block;
}

std::function<std::string(const EpochRecord&)> asha_replay_gate(const RunRecord& report) {
  if (!report.asha) return {};
  const bool stopped = report.status == RunStatus::stopped_early;
  const int last = report.epochs ? static_cast<int>(report.epochs->size()) : 0;
  return [stopped, last](const EpochRecord& epoch) -> std::string {
    if (!stopped || epoch.epoch != last) return "";
    return fmt::format("asha: stopped after epoch {}, as the original trial was", last);
  };
}

}  // namespace runner
