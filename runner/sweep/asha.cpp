// The ASHA promotion rule and its settings.
#include "runner/sweep/asha.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "runner/config/field_path.h"
#include "runner/config/monitor_spec.h"
#include "runner/metrics/metric_kind.h"
#include "runner/sweep/search_space.h"
#include "runner/util/errors.h"

namespace runner {

AshaSpec read_asha(const nlohmann::json& block, const SourceMap& map, const std::string& at) {
  AshaSpec spec;
  spec.metric_given = block.contains("metric");
  spec.metric = block.value("metric", spec.metric);
  spec.maximize = block.contains("mode") ? block["mode"] == "max"
                                         : default_mode(spec.metric) == MonitorMode::max;
  spec.min_epochs = block.value("min_epochs", spec.min_epochs);
  spec.reduction_factor = block.value("reduction_factor", spec.reduction_factor);
  if (block.contains("max_epochs")) {
    spec.max_epochs = block["max_epochs"].get<int>();
    if (spec.min_epochs >= *spec.max_epochs) {
      throw_user_error(map.locate(child_path(at, "min_epochs")),
                       fmt::format("min_epochs {} is not below max_epochs {}", spec.min_epochs,
                                   *spec.max_epochs),
                       "give min_epochs < max_epochs: the first rung comes before the end");
    }
  }
  return spec;
}

std::vector<int> asha_rungs(const AshaSpec& spec, int epochs) {
  std::vector<int> rungs;
  for (long long rung = spec.min_epochs; rung < epochs; rung *= spec.reduction_factor) {
    rungs.push_back(static_cast<int>(rung));
  }
  return rungs;
}

RungVerdict asha_verdict(const std::vector<std::optional<double>>& earlier,
                         std::optional<double> value, bool maximize, int reduction_factor) {
  RungVerdict verdict;
  verdict.of = static_cast<int>(earlier.size()) + 1;
  verdict.quota = std::max(1, verdict.of / std::max(reduction_factor, 1));
  const bool finite = value && std::isfinite(*value);
  verdict.rank = 1;
  for (const std::optional<double>& other : earlier) {
    const bool other_finite = other && std::isfinite(*other);
    // An earlier trial ranks ahead when it is at least as good (ties go to the first recorded).
    const bool ahead = !finite         ? true
                       : !other_finite ? false
                       : maximize      ? *other >= *value
                                       : *other <= *value;
    verdict.rank += ahead;
  }
  verdict.continued = finite && verdict.rank <= verdict.quota;
  return verdict;
}

namespace {

std::string value_text(const AshaSpec& spec, std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return fmt::format("no finite {}", spec.metric);
  return fmt::format("{} {:.4f}", spec.metric, *value);
}

}  // namespace

std::string verdict_text(const AshaSpec& spec, int rung, std::optional<double> value,
                         const RungVerdict& verdict) {
  return fmt::format(
      "{} after epoch {} ranks {} of {} trial{} at this rung; the top {} (1/{}) go on",
      value_text(spec, value), rung, verdict.rank, verdict.of, verdict.of == 1 ? "" : "s",
      verdict.quota, spec.reduction_factor);
}

std::string asha_line(const AshaSpec& spec, int epochs) {
  const std::vector<int> rungs = asha_rungs(spec, epochs);
  return fmt::format(
      "asha: rungs at epoch{} {} of {} by {} ({}); a trial goes on past a rung when in the top "
      "1/{} of those recorded there",
      rungs.size() == 1 ? "" : "s",
      rungs.empty() ? "(none)" : fmt::format("{}", fmt::join(rungs, ", ")), epochs, spec.metric,
      spec.maximize ? "max" : "min", spec.reduction_factor);
}

// Whether the config's `metrics` list gives the figure (top5_accuracy: {top_k: 5}).
bool lists_metric(const nlohmann::json& config, std::string_view figure) {
  const std::optional<MetricSpec> wanted = metric_of_figure(figure);
  if (!wanted || !config.is_object() || !config.contains("metrics")) return false;
  for (const nlohmann::json& entry : config["metrics"]) {
    const bool plain = entry.is_string() && entry.get<std::string>() == wanted->kind;
    const bool with_k =
        entry.is_object() && entry.contains(wanted->kind) && entry[wanted->kind] == wanted->k;
    if (plain || with_k) return true;
  }
  return false;
}

std::string asha_point_problem(const AshaSpec& spec, const nlohmann::json& config) {
  if (spec.metric.rfind("val_", 0) != 0) return "";
  if (auto problem = average_metric_problem("sweep.asha.metric", spec.metric, config);
      !problem.empty())
    return problem;
  const std::string_view figure = model_figure(spec.metric);  // val_ema_macro_f1: macro_f1
  if (metric_of_figure(figure) && !lists_metric(config, figure)) {
    return fmt::format(
        "sweep.asha.metric: {} is a figure of the metric {}, which this point's config does not "
        "list; add it to the config's metrics",
        spec.metric, metric_of_figure(figure)->kind);
  }
  const nlohmann::json dataset =
      config.is_object() ? config.value("dataset", nlohmann::json()) : nlohmann::json();
  const nlohmann::json split =
      dataset.is_object() ? dataset.value("validation_split", nlohmann::json()) : nlohmann::json();
  const bool has_split = split.is_number() && split.get<double>() > 0;
  const bool has_folder = dataset.is_object() && dataset.contains("validation");
  if (has_split || has_folder) return "";
  return "sweep.asha.metric: " + spec.metric +
         " needs a validation set, and this point's config has none; set "
         "dataset.validation_split (e.g. 0.1) or dataset.validation, or watch train_loss";
}

nlohmann::json asha_json(const AshaSpec& spec) {
  nlohmann::json block = {{"metric", spec.metric},
                          {"mode", spec.maximize ? "max" : "min"},
                          {"min_epochs", spec.min_epochs},
                          {"reduction_factor", spec.reduction_factor}};
  if (spec.max_epochs) block["max_epochs"] = *spec.max_epochs;
  return block;
}

}  // namespace runner
