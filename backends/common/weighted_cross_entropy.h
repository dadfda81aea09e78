// The training loss with class weights and focal modulation: PyTorch's
// CrossEntropyLoss(weight=w, label_smoothing=e) (mean reduction: divided by the batch's summed
// weight of the true classes), and with focal_gamma g > 0 each class's term -log p_k scaled by
// (1 - p_k)^g (Lin et al.'s focal loss, generalised to the smoothed target). The host reference
// of both backends; the plain loss (no weights, g = 0) is host_math's softmax_cross_entropy.
#pragma once

#include <cstdint>
#include <vector>

namespace runner {

struct LossWeighting {
  std::vector<float> class_weights;  // one per class; empty: every class weighs 1
  double focal_gamma = 0;
  bool active() const { return !class_weights.empty() || focal_gamma != 0; }
  float weight(int k) const { return class_weights.empty() ? 1.f : class_weights[k]; }
};

// What a batch's loss is divided by: the summed weight of its images' true classes (its image
// count without class weights).
double batch_weight(const std::int32_t* labels, int count, const LossWeighting& weighting);

// Over rows 0..count-1 of logits (rows, classes): returns the summed per-image losses
// sum_k t_k w_k (1 - p_k)^g (-log p_k) (t the smoothed target); writes the gradient of
// (that sum / mean_over) into grad for those rows and zero for rows count..rows-1. mean_over is
// batch_weight of the whole batch (it may run in chunks).
double weighted_softmax_cross_entropy(const float* logits, const std::int32_t* labels, int count,
                                      int rows, int classes, float* grad, double mean_over,
                                      double label_smoothing, const LossWeighting& weighting);

}  // namespace runner
