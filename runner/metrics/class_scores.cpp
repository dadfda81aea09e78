// Per-class precision, recall and F1.
#include "runner/metrics/class_scores.h"

namespace runner {

std::vector<ClassScores> class_scores(const Evaluation& set) {
  const std::vector<std::int64_t> predicted = set.predicted_totals();
  std::vector<ClassScores> scores(set.class_total.size());
  for (std::size_t k = 0; k < scores.size(); ++k) {
    ClassScores& s = scores[k];
    const auto right = static_cast<double>(set.class_correct[k]);
    s.support = set.class_total[k];
    s.predicted = predicted[k];
    if (s.predicted > 0) s.precision = right / static_cast<double>(s.predicted);
    if (s.support > 0) s.recall = right / static_cast<double>(s.support);
    // 2 tp + fp + fn = predicted + support.
    if (s.predicted + s.support > 0) {
      s.f1 = 2 * right / static_cast<double>(s.predicted + s.support);
    }
  }
  return scores;
}

std::optional<double> macro_average(const Evaluation& set,
                                    std::optional<double> ClassScores::*score) {
  double sum = 0;
  int defined = 0;
  for (const ClassScores& s : class_scores(set)) {
    if (!(s.*score)) continue;
    sum += *(s.*score);
    ++defined;
  }
  if (defined == 0) return std::nullopt;
  return sum / defined;
}

}  // namespace runner
