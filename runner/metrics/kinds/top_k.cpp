// top_k: K -> the share of images whose true class is among the K largest logits
// (scikit-learn's top_k_accuracy_score; top_k: 1 is the accuracy).
#include "runner/metrics/metric_kind.h"

namespace runner {

RUNNER_METRIC(top_k) {
  MetricKind kind;
  kind.takes_k = true;
  kind.figure_prefix = "top";
  kind.figure_suffix = "_accuracy";
  kind.value = [](int k, const Evaluation& set) -> std::optional<double> {
    if (set.count == 0) return std::nullopt;
    return static_cast<double>(set.top_k_correct(k)) / static_cast<double>(set.count);
  };
  return kind;
}

}  // namespace runner
