// macro_f1: the mean F1 over the classes that have images or predictions (scikit-learn's
// f1_score(average="macro"), whose labels are those present in either).
#include "runner/metrics/class_scores.h"
#include "runner/metrics/metric_kind.h"

namespace runner {

RUNNER_METRIC(macro_f1) {
  MetricKind kind;
  kind.figure_prefix = "macro_f1";
  kind.value = [](int, const Evaluation& set) { return macro_average(set, &ClassScores::f1); };
  return kind;
}

}  // namespace runner
