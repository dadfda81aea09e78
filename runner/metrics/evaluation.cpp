// Counting one evaluated image.
#include "runner/metrics/evaluation.h"

#include <algorithm>
#include <cmath>

namespace runner {

Evaluation::Evaluation(int classes)
    : class_correct(static_cast<std::size_t>(std::max(classes, 0)), 0),
      class_total(class_correct.size(), 0),
      label_rank_counts(class_correct.size(), 0) {}

void Evaluation::add(const float* z, int label) {
  const int n = classes();
  const int predicted = static_cast<int>(std::max_element(z, z + n) - z);
  const float max = z[predicted];
  double sum = 0;
  int rank = 0;
  for (int k = 0; k < n; ++k) {
    sum += std::exp(static_cast<double>(z[k] - max));
    rank += z[k] > z[label] || (k < label && z[k] == z[label]);
  }
  loss_sum += std::log(sum) + max - z[label];
  ++label_rank_counts[static_cast<std::size_t>(rank)];
  ++class_total[static_cast<std::size_t>(label)];
  ++confusion[{label, predicted}];
  if (predicted == label) {
    ++class_correct[static_cast<std::size_t>(label)];
    ++correct;
  }
  ++count;
  loss = loss_sum / static_cast<double>(count);
}

std::vector<std::int64_t> Evaluation::predicted_totals() const {
  std::vector<std::int64_t> totals(class_total.size(), 0);
  for (const auto& [pair, images] : confusion) {
    if (static_cast<std::size_t>(pair.second) < totals.size()) totals[pair.second] += images;
  }
  return totals;
}

std::int64_t Evaluation::top_k_correct(int k) const {
  std::int64_t total = 0;
  for (std::size_t r = 0; r < label_rank_counts.size() && r < static_cast<std::size_t>(k); ++r) {
    total += label_rank_counts[r];
  }
  return total;
}

}  // namespace runner
