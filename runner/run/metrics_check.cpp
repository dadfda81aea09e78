// Warnings about the metrics list against the model.
#include "runner/run/metrics_check.h"

#include <fmt/format.h>

namespace runner {

std::vector<std::string> metrics_warnings(const Experiment& experiment, const Graph& graph) {
  std::vector<std::string> warnings;
  for (std::size_t i = 0; i < experiment.metrics.size(); ++i) {
    const MetricSpec& spec = experiment.metrics[i];
    if (find_metric_kind(spec.kind)->takes_k && spec.k >= graph.classes) {
      warnings.push_back(
          fmt::format("metrics[{}]: {} {} is at least the model's {} classes: {} is always 100 %",
                      i, spec.kind, spec.k, graph.classes, figure_name(spec)));
    }
  }
  return warnings;
}

}  // namespace runner
