// Weighted and focal softmax cross-entropy in double, per image: p = softmax(z), each class's
// term from weighted_loss_math, the loss their sum and d loss / d z_j = a_j - p_j sum_k a_k.
#include "backends/common/weighted_cross_entropy.h"

#include <algorithm>
#include <cmath>

#include "backends/common/weighted_loss_math.h"

namespace runner {

double batch_weight(const std::int32_t* labels, int count, const LossWeighting& weighting) {
  if (weighting.class_weights.empty()) return count;
  double sum = 0;
  for (int r = 0; r < count; ++r) sum += weighting.class_weights[labels[r]];
  return sum;
}

double weighted_softmax_cross_entropy(const float* logits, const std::int32_t* labels, int count,
                                      int rows, int classes, float* grad, double mean_over,
                                      double label_smoothing, const LossWeighting& weighting) {
  const double gamma = weighting.focal_gamma;
  // A batch whose true classes all weigh 0 adds nothing (PyTorch would divide by zero).
  const double scale = mean_over > 0 ? 1.0 / mean_over : 0.0;
  std::vector<double> p(classes), a(classes);
  double total = 0;
  for (int r = 0; r < count; ++r) {
    const float* z = logits + static_cast<std::size_t>(r) * classes;
    float* g = grad + static_cast<std::size_t>(r) * classes;
    const float max = *std::max_element(z, z + classes);
    double sum = 0;
    for (int k = 0; k < classes; ++k) sum += std::exp(static_cast<double>(z[k]) - max);
    const double log_sum = std::log(sum) + max;
    double a_sum = 0;
    for (int k = 0; k < classes; ++k) {
      const double target = weighted_loss_math::target(k, labels[r], classes, label_smoothing);
      const weighted_loss_math::ClassTerm term =
          weighted_loss_math::class_term(z[k] - log_sum, target * weighting.weight(k), gamma);
      p[k] = term.p;
      a[k] = term.a;
      total += term.loss;
      a_sum += term.a;
    }
    for (int k = 0; k < classes; ++k) g[k] = static_cast<float>((a[k] - p[k] * a_sum) * scale);
  }
  std::fill(grad + static_cast<std::size_t>(count) * classes,
            grad + static_cast<std::size_t>(rows) * classes, 0.f);
  return total;
}

}  // namespace runner
