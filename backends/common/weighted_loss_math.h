// One class's term of the weighted, focal training loss for one image, once, for the host
// reference (weighted_cross_entropy.cpp) and the GPU kernel
// (backends/cudnn/weighted_loss_kernel.cu), as optimizer_math is for the optimizers: with p = p_k,
// f = (1 - p)^g (-log p) and d f / d z_j = h (delta_kj - p_j), h = g (1 - p)^(g-1) p log p - (1 -
// p)^g.
#pragma once

#include <cmath>

#include "runner/util/host_device.h"

namespace runner::weighted_loss_math {

// The smoothed target t_k of class k for an image of class `label`.
RUNNER_HOST_DEVICE inline double target(int k, int label, int classes, double smoothing) {
  return smoothing / classes + (k == label ? 1 - smoothing : 0);
}

struct ClassTerm {
  double p;     // p_k
  double loss;  // t_k w_k f
  double a;     // t_k w_k h: the image's gradient is a_j - p_j sum_k a_k
};

// log_p = log p_k; target_weight = t_k w_k.
RUNNER_HOST_DEVICE inline ClassTerm class_term(double log_p, double target_weight, double gamma) {
  const double p = exp(log_p);
  // 1 - p_k as the other classes' share: exact where p_k rounds to 1.
  const double rest = 1 - p > 0 ? 1 - p : 0.0;
  const double modulation = gamma == 0 ? 1.0 : pow(rest, gamma);
  // g (1 - p)^(g-1) p log p tends to 0 as p tends to 1, for any g > 0.
  const double focal = gamma == 0 || rest == 0 ? 0.0 : gamma * pow(rest, gamma - 1) * p * log_p;
  return {p, target_weight * modulation * -log_p, target_weight * (focal - modulation)};
}

}  // namespace runner::weighted_loss_math
