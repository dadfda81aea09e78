// Weighted and focal softmax cross-entropy in double, per image: p = softmax(z),
// f_k = (1 - p_k)^g (-log p_k), loss = sum_k t_k w_k f_k, and since
// d f_k / d z_j = h_k (delta_kj - p_j) with h_k = g (1 - p_k)^(g-1) p_k log p_k - (1 - p_k)^g,
// d loss / d z_j = a_j - p_j sum_k a_k where a_k = t_k w_k h_k.
#include "backends/common/weighted_cross_entropy.h"

#include <algorithm>
#include <cmath>

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
      const double log_p = z[k] - log_sum;
      p[k] = std::exp(log_p);
      const double target = label_smoothing / classes + (k == labels[r] ? 1 - label_smoothing : 0);
      const double tw = target * weighting.weight(k);
      // 1 - p_k as the other classes' share: exact where p_k rounds to 1.
      const double rest = std::max(0.0, 1 - p[k]);
      const double modulation = gamma == 0 ? 1.0 : std::pow(rest, gamma);
      total += tw * modulation * -log_p;
      // g (1 - p)^(g-1) p log p tends to 0 as p tends to 1, for any g > 0.
      const double focal =
          gamma == 0 || rest == 0 ? 0.0 : gamma * std::pow(rest, gamma - 1) * p[k] * log_p;
      a[k] = tw * (focal - modulation);
      a_sum += a[k];
    }
    for (int k = 0; k < classes; ++k) g[k] = static_cast<float>((a[k] - p[k] * a_sum) * scale);
  }
  std::fill(grad + static_cast<std::size_t>(count) * classes,
            grad + static_cast<std::size_t>(rows) * classes, 0.f);
  return total;
}

}  // namespace runner
