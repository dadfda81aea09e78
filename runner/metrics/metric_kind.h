// The metric registry: the figures of an evaluated set beyond accuracy and loss that the
// config's `metrics` list asks for (top-k accuracy, balanced accuracy, macro F1, per-class
// precision and recall). A metric is defined in its own file in kinds/ with
// `RUNNER_METRIC(name) { ... }`; the build lists those lines (cmake/registry.cmake), as for layer
// kinds and dataset formats. Every metric is a function of the set's counts (evaluation.h), so
// computing one costs nothing measurable next to the evaluation itself.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runner/metrics/evaluation.h"

namespace runner {

// One entry of the config's `metrics` list: a metric's name, and its k where it takes one
// ({top_k: 5}).
struct MetricSpec {
  std::string kind;
  int k = 0;
  bool operator==(const MetricSpec&) const = default;
};

struct MetricKind {
  std::string name;  // set by the registry from the RUNNER_METRIC name
  // An entry {name: K} with an integer K >= 1 (top_k); else the plain name.
  bool takes_k = false;
  // The scalar figure's name on a set, without the set's prefix (val_, test_): figure_prefix,
  // then K where the metric takes one, then figure_suffix ("top" 5 "_accuracy"). Empty prefix:
  // the metric is a per-class table only.
  std::string figure_prefix, figure_suffix;
  // The figure, from 0 to 1, higher is better; none where it is not defined (an empty set).
  std::optional<double> (*value)(int k, const Evaluation& set) = nullptr;
  // A table by class name, for metrics that give one (none: no table).
  nlohmann::json (*per_class)(const Evaluation& set,
                              const std::vector<std::string>& class_names) = nullptr;
};

#define RUNNER_METRIC(name) MetricKind metric_kind_##name()

const std::vector<MetricKind>& metric_kinds();
// The kind named `name`; nullptr when none is.
const MetricKind* find_metric_kind(std::string_view name);
std::vector<std::string> metric_kind_names();

// The scalar figure an entry gives ("top5_accuracy"); "" for a table-only metric.
std::string figure_name(const MetricSpec& spec);
// The entry whose figure is `figure` ("macro_f1", "top3_accuracy"); none when no metric gives it.
std::optional<MetricSpec> metric_of_figure(std::string_view figure);

// A set's figure by name without the set's prefix: "accuracy", "loss" or a metric's figure;
// none when no metric gives that name or it is not defined on the set.
std::optional<double> figure_value(std::string_view figure, const Evaluation& set);
// Whether `figure` names one (the built-in two or a metric's).
bool is_known_figure(std::string_view figure);
// Whether a lower value is better: the loss.
bool lower_is_better(std::string_view figure);

// Whether `key` names a metric's figure of the validation or test set, as reports and summary
// rows spell them: val_top5_accuracy, test_macro_f1 (not val_accuracy: a built-in).
bool is_set_figure_key(std::string_view key);

// The entries' scalar figures on a set, named with `prefix` ("val_top5_accuracy"), in the
// entries' order; a figure not defined on the set is left out.
std::vector<std::pair<std::string, double>> set_figures(const std::vector<MetricSpec>& metrics,
                                                        const Evaluation& set,
                                                        std::string_view prefix);

}  // namespace runner
