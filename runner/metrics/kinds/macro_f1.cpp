// macro_f1: the mean F1 over the classes that have images or predictions (scikit-learn's
// f1_score(average="macro"), whose labels are those present in either).
#include "runner/metrics/class_scores.h"
#include "runner/metrics/metric_kind.h"

namespace runner {

RUNNER_METRIC(macro_f1) {
  MetricKind kind;
  kind.figure_prefix = "macro_f1";
  kind.value = [](int, const Evaluation& set) -> std::optional<double> {
    double sum = 0;
    int classes = 0;
    for (const ClassScores& s : class_scores(set)) {
      if (!s.f1) continue;
      sum += *s.f1;
      ++classes;
    }
    if (classes == 0) return std::nullopt;
    return sum / classes;
  };
  return kind;
}

}  // namespace runner
