// The host-side arithmetic every backend shares as its reference: byte normalisation, softmax
// cross-entropy with its gradient, and the optimizers (PyTorch's SGD, Adam and AdamW semantics,
// weight decay per parameter, gradient clipping by global norm).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/common/optimizer_math.h"
#include "runner/config/optimizer_spec.h"
#include "runner/data/dataset_spec.h"
#include "runner/graph/graph.h"

namespace runner {

// Per-channel affine map from bytes: value = byte * scale[c] + shift[c], which equals
// (byte / 255 - mean[c]) / std[c].
struct ByteNormalizer {
  ByteNormalizer(const Normalization& normalize, int channels);
  // images (count, C, HW) bytes -> out (count, C, HW) floats.
  void apply(const std::uint8_t* images, int count, int pixels_per_channel, float* out) const;
  std::vector<float> scale, shift;
};

// Softmax cross-entropy over rows 0..count-1 of logits (rows, classes). Returns the summed loss;
// writes d(loss / mean_over)/d(logits) into grad for those rows and zero for rows count..rows-1.
// mean_over is the whole batch's size (count unless the batch runs in chunks). With
// label_smoothing e, PyTorch's CrossEntropyLoss(label_smoothing=e): the target is 1 - e on the
// label plus e / classes on every class.
//
// With `mixed` (mixup or cutmix, batch_mix.h), row r's target is lam x its label's target +
// (1 - lam) x that of partners[r]: timm's SoftTargetCrossEntropy of its mixup_target.
struct MixedLabels {
  const std::int32_t* partners = nullptr;  // (count) the partner's label of each row; null: none
  float lam = 1;
};
double softmax_cross_entropy(const float* logits, const std::int32_t* labels, int count, int rows,
                             int classes, float* grad, int mean_over, double label_smoothing = 0,
                             const MixedLabels& mixed = {});

// The weight decay of one parameter: the optimizer's, or 0 where weight_decay_exclude names its
// kind (bias: named *.bias; norm: ParamSpec::normalization).
double weight_decay_of(const OptimizerSpec& spec, const ParamSpec& param);
// The element-wise settings of optimizer_math for one parameter, for the CPU and GPU programs.
optimizer_math::Sgd sgd_settings(const OptimizerSpec& spec, const ParamSpec& param);
optimizer_math::Adam adam_settings(const OptimizerSpec& spec, const ParamSpec& param);

// The sum of the squares of n values, in double: a gradient's part of the global norm.
double sum_of_squares(const float* values, std::size_t n);

// One optimizer step over a parameter buffer, allocation-free.
class Optimizer {
 public:
  explicit Optimizer(const OptimizerSpec& spec);
  // Names of the per-parameter state buffers, as in PyTorch's state_dict.
  const std::vector<std::string>& state_names() const { return state_names_; }
  // Call once per training step, before the updates of that step.
  void begin_step() { ++step_; }
  std::int64_t step() const { return step_; }
  void set_step(std::int64_t step) { step_ = step; }
  void set_learning_rate(double lr) { spec_.lr = lr; }
  // SGD's momentum, or Adam's beta1 (Program::set_momentum).
  void set_momentum(double momentum) {
    (spec_.adam_family() ? spec_.beta1 : spec_.momentum) = momentum;
  }
  // Updates `value` (n floats of `param`) from `grad` times `grad_scale` (clip_factor, 1 without
  // clipping), using the state buffers (state_names().size() of them).
  void update(const ParamSpec& param, float* value, const float* grad, float* const* state,
              std::size_t n, float grad_scale) const;

 private:
  OptimizerSpec spec_;
  std::vector<std::string> state_names_;
  std::int64_t step_ = 0;
};

}  // namespace runner
