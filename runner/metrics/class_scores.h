// Per-class precision, recall and F1 from an evaluated set's counts, as scikit-learn's
// precision_recall_fscore_support defines them; what it calls ill-defined (and sets to 0 with a
// warning) is none here.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "runner/metrics/evaluation.h"

namespace runner {

struct ClassScores {
  std::int64_t support = 0;         // images of the class
  std::int64_t predicted = 0;       // images predicted as it
  std::optional<double> precision;  // none: nothing predicted as the class
  std::optional<double> recall;     // none: no image of the class
  std::optional<double> f1;         // 2 tp / (2 tp + fp + fn); none: neither of the above
};

std::vector<ClassScores> class_scores(const Evaluation& set);

// The mean of one score over the classes where it is defined (scikit-learn's macro average over
// the labels present); none when it is defined for none.
std::optional<double> macro_average(const Evaluation& set,
                                    std::optional<double> ClassScores::*score);

}  // namespace runner
