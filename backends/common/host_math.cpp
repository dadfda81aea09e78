// Byte normalisation, softmax cross-entropy and the SGD/Adam updates on the host.
#include "backends/common/host_math.h"

#include <algorithm>
#include <cmath>

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
                             int classes, float* grad, int mean_over) {
  double total = 0;
  const float inverse_count = mean_over > 0 ? 1.f / static_cast<float>(mean_over) : 0.f;
  for (int r = 0; r < count; ++r) {
    const float* z = logits + static_cast<std::size_t>(r) * classes;
    float* g = grad + static_cast<std::size_t>(r) * classes;
    float max = *std::max_element(z, z + classes);
    double sum = 0;
    for (int k = 0; k < classes; ++k) sum += std::exp(static_cast<double>(z[k] - max));
    double log_sum = std::log(sum) + max;
    total += log_sum - z[labels[r]];
    for (int k = 0; k < classes; ++k) {
      g[k] = static_cast<float>(std::exp(z[k] - log_sum)) * inverse_count;
    }
    g[labels[r]] -= inverse_count;
  }
  std::fill(grad + static_cast<std::size_t>(count) * classes,
            grad + static_cast<std::size_t>(rows) * classes, 0.f);
  return total;
}

Optimizer::Optimizer(const OptimizerSpec& spec) : spec_(spec), state_names_(spec.state_names()) {}

void Optimizer::update(float* value, const float* grad, float* const* state, std::size_t n) const {
  const float lr = static_cast<float>(spec_.lr);
  const float decay = static_cast<float>(spec_.weight_decay);
  if (spec_.type == "adam") {
    const float b1 = static_cast<float>(spec_.beta1), b2 = static_cast<float>(spec_.beta2);
    const double t = static_cast<double>(step_);
    const float step_size = static_cast<float>(spec_.lr / (1 - std::pow(spec_.beta1, t)));
    const float inv_sqrt_bias2 = static_cast<float>(1 / std::sqrt(1 - std::pow(spec_.beta2, t)));
    const float eps = static_cast<float>(spec_.eps);
    float* m = state[0];
    float* v = state[1];
    for (std::size_t i = 0; i < n; ++i) {
      float g = grad[i] + decay * value[i];
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      value[i] -= step_size * m[i] / (std::sqrt(v[i]) * inv_sqrt_bias2 + eps);
    }
    return;
  }
  if (spec_.momentum == 0) {
    for (std::size_t i = 0; i < n; ++i) value[i] -= lr * (grad[i] + decay * value[i]);
    return;
  }
  const float momentum = static_cast<float>(spec_.momentum);
  // PyTorch: the first step copies the gradient into the buffer, later steps apply dampening.
  const float keep = step_ <= 1 ? 0.f : momentum;
  const float add = step_ <= 1 ? 1.f : static_cast<float>(1 - spec_.dampening);
  float* buffer = state[0];
  for (std::size_t i = 0; i < n; ++i) {
    float d = grad[i] + decay * value[i];
    buffer[i] = keep * buffer[i] + add * d;
    value[i] -= lr * (spec_.nesterov ? d + momentum * buffer[i] : buffer[i]);
  }
}

}  // namespace runner
