// balanced_accuracy: the mean of the per-class recalls over the classes the set has images of
// (scikit-learn's balanced_accuracy_score): on imbalanced data, each class counts the same.
#include "runner/metrics/class_scores.h"
#include "runner/metrics/metric_kind.h"

namespace runner {

RUNNER_METRIC(balanced_accuracy) {
  MetricKind kind;
  kind.figure_prefix = "balanced_accuracy";
  kind.value = [](int, const Evaluation& set) { return macro_average(set, &ClassScores::recall); };
  return kind;
}

}  // namespace runner
