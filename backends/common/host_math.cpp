// Byte normalisation, softmax cross-entropy and the SGD/Adam/AdamW updates on the host.
#include "backends/common/host_math.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "backends/common/optimizer_math.h"

namespace runner {

ByteNormalizer::ByteNormalizer(const Normalization& normalize, int channels) {
  for (int c = 0; c < channels; ++c) {
    float mean = normalize.mean.empty() ? 0.f : normalize.mean[c];
    float std = normalize.std.empty() ? 1.f : normalize.std[c];
    scale.push_back(1.f / (255.f * std));
    shift.push_back(-mean / std);
  }
}

void ByteNormalizer::apply(const std::uint8_t* images, int count, int pixels_per_channel,
                           float* out) const {
  const int channels = static_cast<int>(scale.size());
  for (int n = 0; n < count; ++n) {
    for (int c = 0; c < channels; ++c) {
      const float a = scale[c], b = shift[c];
      const std::uint8_t* in =
          images + (static_cast<std::size_t>(n) * channels + c) * pixels_per_channel;
      float* o = out + (static_cast<std::size_t>(n) * channels + c) * pixels_per_channel;
      for (int i = 0; i < pixels_per_channel; ++i) o[i] = static_cast<float>(in[i]) * a + b;
    }
  }
}

double softmax_cross_entropy(const float* logits, const std::int32_t* labels, int count, int rows,
                             int classes, float* grad, int mean_over, double label_smoothing,
                             const MixedLabels& mixed) {
  double total = 0;
  const float inverse_count = mean_over > 0 ? 1.f / static_cast<float>(mean_over) : 0.f;
  // d(loss)/d(z_k) = p_k - target_k, target = (1 - e) on the label + e / classes everywhere.
  const float spread = static_cast<float>(label_smoothing / classes) * inverse_count;
  const float on_label = static_cast<float>(1 - label_smoothing) * inverse_count;
  const double lam = mixed.lam;
  for (int r = 0; r < count; ++r) {
    const float* z = logits + static_cast<std::size_t>(r) * classes;
    float* g = grad + static_cast<std::size_t>(r) * classes;
    float max = *std::max_element(z, z + classes);
    double sum = 0;
    for (int k = 0; k < classes; ++k) sum += std::exp(static_cast<double>(z[k] - max));
    double log_sum = std::log(sum) + max;
    // The target's logit: z_label, or lam z_label + (1 - lam) z_partner when mixed.
    const double z_target =
        mixed.partners ? lam * z[labels[r]] + (1 - lam) * z[mixed.partners[r]] : z[labels[r]];
    total += log_sum - z_target;
    if (label_smoothing != 0) {  // (1 - e) (-log p_target) + e * mean over k of (-log p_k)
      double mean_z = 0;
      for (int k = 0; k < classes; ++k) mean_z += z[k];
      mean_z /= classes;
      total += label_smoothing * (z_target - mean_z);
    }
    for (int k = 0; k < classes; ++k) {
      g[k] = static_cast<float>(std::exp(z[k] - log_sum)) * inverse_count - spread;
    }
    if (mixed.partners) {
      g[labels[r]] -= static_cast<float>(lam) * on_label;
      g[mixed.partners[r]] -= static_cast<float>(1 - lam) * on_label;
    } else {
      g[labels[r]] -= on_label;
    }
  }
  std::fill(grad + static_cast<std::size_t>(count) * classes,
            grad + static_cast<std::size_t>(rows) * classes, 0.f);
  return total;
}

double weight_decay_of(const OptimizerSpec& spec, const ParamSpec& param) {
  const std::string_view name = param.name;
  const bool bias = name.size() >= 5 && name.substr(name.size() - 5) == ".bias";
  if ((spec.decay_exclude_bias && bias) || (spec.decay_exclude_norm && param.normalization) ||
      (spec.decay_exclude_embedding && param.embedding)) {
    return 0;
  }
  return spec.weight_decay;
}

optimizer_math::Sgd sgd_settings(const OptimizerSpec& spec, const ParamSpec& param) {
  return {static_cast<float>(spec.lr), static_cast<float>(weight_decay_of(spec, param)),
          static_cast<float>(spec.momentum), spec.nesterov};
}

optimizer_math::Adam adam_settings(const OptimizerSpec& spec, const ParamSpec& param) {
  const double decay = weight_decay_of(spec, param);
  const bool decoupled = spec.type == OptimizerType::adamw;
  return {decoupled ? 0.f : static_cast<float>(decay), static_cast<float>(spec.beta1),
          static_cast<float>(spec.beta2), static_cast<float>(spec.eps),
          decoupled ? static_cast<float>(1 - spec.lr * decay) : 1.f};
}

double sum_of_squares(const float* values, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(values[i]) * values[i];
  return sum;
}

Optimizer::Optimizer(const OptimizerSpec& spec) : spec_(spec), state_names_(spec.state_names()) {}

void Optimizer::update(const ParamSpec& param, float* value, const float* grad, float* const* state,
                       std::size_t n, float grad_scale) const {
  namespace om = optimizer_math;
  const om::StepFactors factors =
      om::step_factors(step_, spec_.lr, spec_.beta1, spec_.beta2,
                       static_cast<float>(spec_.momentum), static_cast<float>(1 - spec_.dampening));
  if (spec_.adam_family()) {
    const om::Adam adam = adam_settings(spec_, param);
    for (std::size_t i = 0; i < n; ++i) {
      om::adam_step(value[i], grad[i] * grad_scale, state[0][i], state[1][i], adam, factors);
    }
    return;
  }
  const om::Sgd sgd = sgd_settings(spec_, param);
  float* buffer = spec_.momentum == 0 ? nullptr : state[0];
  for (std::size_t i = 0; i < n; ++i) {
    om::sgd_step(value[i], grad[i] * grad_scale, buffer ? buffer + i : nullptr, sgd, factors);
  }
}

}  // namespace runner
