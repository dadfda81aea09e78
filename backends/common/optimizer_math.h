// The optimizers' arithmetic, once, for the CPU backend (host_math.cpp) and the GPU kernels
// (kernels.cu): PyTorch's SGD (momentum, dampening, Nesterov, weight decay), Adam and AdamW,
// element by element, and clip_grad_norm_'s factor, so that the two backends cannot drift apart.
// Plain C++ with float operations in a fixed order; the kernels are built without FMA contraction,
// as the host code is.
#pragma once

#include <cmath>

#include "runner/util/host_device.h"

namespace runner::optimizer_math {

// What changes with the step number t (1-based, this step included).
struct StepFactors {
  float adam_step_size;       // lr / (1 - beta1^t)
  float adam_inv_sqrt_bias2;  // 1 / sqrt(1 - beta2^t)
  float sgd_keep;             // momentum buffer factor: 0 on the first step, else momentum
  float sgd_add;              // gradient factor: 1 on the first step, else 1 - dampening
};

RUNNER_HOST_DEVICE inline StepFactors step_factors(long long t, double lr, double beta1,
                                                   double beta2, float momentum,
                                                   float one_minus_dampening) {
  const double steps = static_cast<double>(t);
  // PyTorch: the first step copies the gradient into the buffer, later steps apply dampening.
  const bool first = t <= 1;
  return {static_cast<float>(lr / (1 - pow(beta1, steps))),
          static_cast<float>(1 / sqrt(1 - pow(beta2, steps))), first ? 0.f : momentum,
          first ? 1.f : one_minus_dampening};
}

struct Sgd {
  float lr, weight_decay, momentum;
  bool nesterov;
};

// One element: `buffer` is the momentum buffer's element, or null without momentum.
RUNNER_HOST_DEVICE inline void sgd_step(float& value, float grad, float* buffer, const Sgd& s,
                                        const StepFactors& f) {
  const float d = grad + s.weight_decay * value;
  if (buffer == nullptr) {
    value = value - s.lr * d;
    return;
  }
  const float b = f.sgd_keep * *buffer + f.sgd_add * d;
  *buffer = b;
  value = value - s.lr * (s.nesterov ? d + s.momentum * b : b);
}

// weight_decay: Adam's, added to the gradient (0 for AdamW); keep: AdamW's decoupled decay,
// 1 - lr * weight_decay, applied to the value before the step (1 for Adam: an exact no-op).
struct Adam {
  float weight_decay, beta1, beta2, eps, keep;
};

RUNNER_HOST_DEVICE inline void adam_step(float& value, float grad, float& m, float& v,
                                         const Adam& s, const StepFactors& f) {
  value = value * s.keep;
  const float g = grad + s.weight_decay * value;
  m = s.beta1 * m + (1 - s.beta1) * g;
  v = s.beta2 * v + (1 - s.beta2) * g * g;
  value = value - f.adam_step_size * m / (sqrtf(v) * f.adam_inv_sqrt_bias2 + s.eps);
}

// torch.nn.utils.clip_grad_norm_: every gradient is multiplied by max_norm / (total_norm + 1e-6)
// where that is below 1, total_norm being the L2 norm of all gradients together. 1 otherwise, so
// that an unclipped step multiplies by 1 (exact).
RUNNER_HOST_DEVICE inline float clip_factor(float total_norm, float max_norm) {
  const float factor = max_norm / (total_norm + 1e-6f);
  return factor < 1.f ? factor : 1.f;
}

}  // namespace runner::optimizer_math
