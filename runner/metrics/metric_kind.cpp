// The metric registry, and figures by name.
#include "runner/metrics/metric_kind.h"

#include <algorithm>
#include <charconv>

namespace runner {

#define RUNNER_REGISTRY_ENTRY(name) MetricKind metric_kind_##name();
#include "runner/metrics/metric_kinds.inc"
#undef RUNNER_REGISTRY_ENTRY

namespace {

std::vector<MetricKind> make_registry() {
  std::vector<MetricKind> kinds;
#define RUNNER_REGISTRY_ENTRY(id)      \
  kinds.push_back(metric_kind_##id()); \
  kinds.back().name = #id;
#include "runner/metrics/metric_kinds.inc"
#undef RUNNER_REGISTRY_ENTRY
  return kinds;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

const std::vector<MetricKind>& metric_kinds() {
  static const std::vector<MetricKind> kinds = make_registry();
  return kinds;
}

const MetricKind* find_metric_kind(std::string_view name) {
  for (const MetricKind& kind : metric_kinds()) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

std::vector<std::string> metric_kind_names() {
  std::vector<std::string> names;
  for (const MetricKind& kind : metric_kinds()) names.push_back(kind.name);
  return names;
}

std::string figure_name(const MetricSpec& spec) {
  const MetricKind* kind = find_metric_kind(spec.kind);
  if (!kind || kind->figure_prefix.empty()) return "";
  return kind->figure_prefix + (kind->takes_k ? std::to_string(spec.k) : "") + kind->figure_suffix;
}

std::optional<MetricSpec> metric_of_figure(std::string_view figure) {
  for (const MetricKind& kind : metric_kinds()) {
    if (kind.figure_prefix.empty()) continue;
    if (!kind.takes_k) {
      if (figure == kind.figure_prefix + kind.figure_suffix) return MetricSpec{kind.name, 0};
      continue;
    }
    const std::size_t fixed = kind.figure_prefix.size() + kind.figure_suffix.size();
    if (figure.size() <= fixed || !starts_with(figure, kind.figure_prefix) ||
        figure.substr(figure.size() - kind.figure_suffix.size()) != kind.figure_suffix) {
      continue;
    }
    const std::string_view digits = figure.substr(kind.figure_prefix.size(), figure.size() - fixed);
    int k = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
    // One spelling per figure: no sign, no leading zero.
    if (error == std::errc() && end == digits.data() + digits.size() && k >= 1 &&
        digits.front() != '0') {
      return MetricSpec{kind.name, k};
    }
  }
  return std::nullopt;
}

std::optional<double> figure_value(std::string_view figure, const Evaluation& set) {
  if (figure == "accuracy") return set.accuracy();
  if (figure == "loss") return set.loss;
  const std::optional<MetricSpec> spec = metric_of_figure(figure);
  if (!spec) return std::nullopt;
  return find_metric_kind(spec->kind)->value(spec->k, set);
}

bool is_known_figure(std::string_view figure) {
  return figure == "accuracy" || figure == "loss" || metric_of_figure(figure).has_value();
}

bool lower_is_better(std::string_view figure) {
  return figure == "loss";
}

bool is_set_figure_key(std::string_view key) {
  for (const std::string_view prefix : {"val_", "test_"}) {
    if (!starts_with(key, prefix)) continue;
    const std::string_view figure = key.substr(prefix.size());
    if (metric_of_figure(figure)) return true;
    // training.ema's figures of the average: val_ema_accuracy, test_ema_loss.
    if (starts_with(figure, "ema_") && is_known_figure(figure.substr(4))) return true;
  }
  return false;
}

std::vector<std::pair<std::string, double>> set_figures(const std::vector<MetricSpec>& metrics,
                                                        const Evaluation& set,
                                                        std::string_view prefix) {
  std::vector<std::pair<std::string, double>> figures;
  for (const MetricSpec& spec : metrics) {
    const std::string name = figure_name(spec);
    if (name.empty()) continue;
    if (const std::optional<double> value = find_metric_kind(spec.kind)->value(spec.k, set)) {
      figures.emplace_back(std::string(prefix) + name, *value);
    }
  }
  return figures;
}

}  // namespace runner
