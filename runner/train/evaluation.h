// Evaluation of a test or validation set: overall and per-class accuracy, the confusion matrix
// and the mean loss, from the logits.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "runner/data/dataset.h"

namespace runner {

struct Evaluation {
  std::int64_t count = 0;
  std::int64_t correct = 0;
  double loss = 0;  // mean cross-entropy
  std::vector<std::int64_t> class_correct, class_total;
  // Images by (true class, predicted class), only the pairs that occur: memory grows with the
  // images, not with the square of the classes (a CSV may name thousands).
  std::map<std::pair<int, int>, std::int64_t> confusion;
  double accuracy() const { return count ? static_cast<double>(correct) / count : 0.0; }
  // False for a class without images in the evaluated set: its accuracy is not a number.
  bool has_images(int k) const {
    const auto i = static_cast<std::size_t>(k);
    return i < class_total.size() && class_total[i] > 0;
  }
  std::int64_t confused(int truth, int predicted) const {
    auto found = confusion.find({truth, predicted});
    return found == confusion.end() ? 0 : found->second;
  }
  double class_accuracy(int k) const {
    const auto i = static_cast<std::size_t>(k);
    return i < class_total.size() && class_total[i]
               ? static_cast<double>(class_correct[i]) / class_total[i]
               : 0.0;
  }
};

// Runs the whole dataset through predict() in batches of up to `batch`.
Evaluation evaluate(Program& program, const Dataset& data, int batch);

}  // namespace runner
