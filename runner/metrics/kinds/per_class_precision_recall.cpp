// per_class_precision_recall: for each class, its precision, recall, F1 and support (scikit-
// learn's precision_recall_fscore_support(average=None)); null where scikit-learn warns and
// writes 0 (no image predicted as the class: precision; no image of it: recall).
#include "runner/metrics/class_scores.h"
#include "runner/metrics/metric_kind.h"

namespace runner {

RUNNER_METRIC(per_class_precision_recall) {
  MetricKind kind;
  kind.per_class = [](const Evaluation& set, const std::vector<std::string>& class_names) {
    auto number = [](const std::optional<double>& v) {
      return v ? nlohmann::json(*v) : nlohmann::json();
    };
    const std::vector<ClassScores> scores = class_scores(set);
    nlohmann::json table = nlohmann::json::object();
    for (std::size_t k = 0; k < scores.size() && k < class_names.size(); ++k) {
      table[class_names[k]] = {{"precision", number(scores[k].precision)},
                               {"recall", number(scores[k].recall)},
                               {"f1", number(scores[k].f1)},
                               {"support", scores[k].support}};
    }
    return table;
  };
  return kind;
}

}  // namespace runner
