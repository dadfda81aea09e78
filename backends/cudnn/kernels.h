// Our own CUDA kernels, where no cuDNN or cuBLAS call fits. Each computes what its host
// reference in backends/common/host_math.cpp computes, operation for operation (the file is
// compiled with --fmad=false so products and sums round as on the host). All launch on `stream`
// and read per-step values (the batch's count, the optimizer step) from device memory, so a
// captured CUDA graph replays them correctly.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "backends/common/batch_mix.h"
#include "backends/common/loss_scale_math.h"
#include "backends/common/optimizer_math.h"
#include "backends/cudnn/data_type.h"
#include "runner/data/augment_math.h"

namespace runner::cudnn::kernels {

// Where a batch's bytes are on the device: image n of the batch is row rows[n] of `images` (a
// training set held on the device) or, when rows is null, row n (a batch uploaded as it is).
struct BatchSource {
  const std::uint8_t* images = nullptr;  // (rows, C, H, W) bytes
  const std::int32_t* labels = nullptr;  // (rows); read only when labels are loaded
  const std::int32_t* rows = nullptr;    // (batch), or null
  const int* count = nullptr;            // images in this batch, <= batch
  // Rows of a held training set are augmented as they are gathered: image rows[n] as
  // augment_math draws it for epoch *epoch (read per step, so a captured graph replays it).
  augment_math::Plan augment = {};      // count 0: none
  const std::int32_t* epoch = nullptr;  // read only with rows and augmentation
  // Training batches: this step's mixup or cutmix (batch_mix.h), read per step; null: none.
  const batch_mix::BatchMix* mix = nullptr;
};

// out (batch, C, H, W) = byte * scale[c] + shift[c] for the batch's images n < *count, zeros
// after them (a short last batch); the bytes of held rows augmented as `source` says. With
// labels_out (batch + 1), also labels_out[n] = image n's label and labels_out[batch] = *count,
// which the loss reads. `out` holds `out_type` elements (computed in FP32, rounded once).
// With source.mix, each image is mixed with its partner as batch_mix::mixed_value says, and
// the step's mix is copied to *mix_out for the loss.
void load_batch(BatchSource source, int batch, int channels, int height, int width,
                const float* scale, const float* shift, void* out, DataType out_type,
                std::int32_t* labels_out, batch_mix::BatchMix* mix_out, cudaStream_t stream);

// Softmax cross-entropy over rows < *count of logits (rows, classes): adds the summed loss to
// *loss_sum and writes d(mean loss)/d(logits) into grad, zero for rows >= *count. One block, a
// fixed summation order: the loss is the same on every run.
// label_smoothing as in host_math.h. Logits and grad hold `type` elements; the loss is computed
// in FP32 whatever they hold. With loss_scale (device memory: fp16's dynamic loss scale), the
// gradient is multiplied by *loss_scale before it is rounded to `type`; the loss is not.
// With mix (device memory, read per step), each row's target is mixed with its partner's label
// as host_math's MixedLabels says.
void softmax_cross_entropy(const void* logits, const std::int32_t* labels, const int* count,
                           int rows, int classes, double label_smoothing,
                           const batch_mix::BatchMix* mix, void* grad, DataType type,
                           const float* loss_scale, double* loss_sum, cudaStream_t stream);

// The optimizer's per-step scalars, computed on the device by begin_step.
struct StepScalars {
  long long step;                       // optimizer steps taken, this one included
  double lr;                            // the learning rate, set from the host between steps
  double momentum, beta1;               // SGD's and Adam's, set from the host (one_cycle cycles
                                        // the one its optimizer has)
  optimizer_math::StepFactors factors;  // what follows from it (backends/common/optimizer_math.h)
  float grad_scale;                     // what the updates multiply this step's gradients by:
                                        // loss scaling's unscale and clip_grad_norm's factor
  double grad_norm_sum;                 // global gradient norms (before clipping), summed
  // fp16's dynamic loss scale (backends/common/loss_scale_math.h); found_inf is set by
  // find_non_finite for this step's gradients, and begin_step moves it to `skip`, which makes the
  // updates leave the weights and optimizer state as they are.
  loss_scale_math::State loss;
  int found_inf;
  int skip;
};

struct OptimizerConstants {
  double beta2 = 0;
  float one_minus_dampening = 1;
  bool loss_scaling = false;  // fp16: gradients are scaled by scalars->loss.scale
};

// Increments scalars->step and recomputes the per-step scalars from it (grad_scale back to 1).
// With loss scaling: grad_scale is the unscale factor of this step's scale, which is then updated
// (halved after a non-finite gradient, whose step is skipped: step not incremented).
void begin_step(StepScalars* scalars, OptimizerConstants constants, cudaStream_t stream);

// Both updates leave everything as it is in a step that scalars->skip skips.
using SgdSettings = optimizer_math::Sgd;
// buffer: the momentum buffer, or null without momentum. The lr and momentum are scalars->lr
// and scalars->momentum, not s's.
void sgd_update(float* value, const float* grad, float* buffer, std::size_t n, SgdSettings s,
                const StepScalars* scalars, cudaStream_t stream);

using AdamSettings = optimizer_math::Adam;
// `decoupled_decay`: AdamW's weight decay (0 for Adam), whose factor s.keep = 1 - lr * decay
// follows the step's learning rate (training.schedule), as on the host. beta1 is
// scalars->beta1, not s.beta1.
void adam_update(float* value, const float* grad, float* exp_avg, float* exp_avg_sq, std::size_t n,
                 AdamSettings s, double decoupled_decay, const StepScalars* scalars,
                 cudaStream_t stream);

// clip_grad_norm: *out = the sum of the squares of a gradient's n values (one block, in double,
// a fixed order); then clip_gradients takes the global norm from `count` of those sums (unscaled
// by grad_scale: loss scaling's factor), adds it to scalars->grad_norm_sum (not for a skipped
// step) and multiplies scalars->grad_scale by optimizer_math::clip_factor, which the updates
// multiply the gradients by.
void sum_of_squares(const float* values, std::size_t n, double* out, cudaStream_t stream);
void clip_gradients(const double* squares, int count, float max_norm, StepScalars* scalars,
                    cudaStream_t stream);

// y (rows, cols) += bias (cols) on every row; y holds `type` elements, the bias FP32.
void add_bias_rows(void* y, DataType type, const float* bias, int rows, int cols,
                   cudaStream_t stream);

// out = sum of inputs[0..count) (count <= kMaxSumInputs), plus out itself when `accumulate`; all
// of `type` elements, summed in FP32.
inline constexpr int kMaxSumInputs = 8;
struct SumInputs {
  const void* data[kMaxSumInputs];
  int count;
};
void sum_arrays(void* out, SumInputs inputs, std::size_t n, bool accumulate, DataType type,
                cudaStream_t stream);

// cudaSuccess when this binary holds code the device can run (SASS for its architecture or PTX
// it can compile), else the CUDA error that says why.
cudaError_t check_kernel_image(int device);

}  // namespace runner::cudnn::kernels
