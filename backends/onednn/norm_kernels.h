// layer_norm's and group_norm's CPU kernels. oneDNN 2.6 has no group normalization, and its
// layer normalization wants the channels innermost, which the 16-channel blocks that the
// convolutions around a norm pick are not: these read any channel-blocked layout as it is, in f32
// or bf16, one image per OpenMP thread at a time. Rows sum in FP32, sets in double.
#pragma once

#include "backends/common/norm_math.h"

namespace runner::onednn {

// A batch of values: image n's channel c at position p lies at
// n C P + ((c / block) P + p) block + c % block. Block 1 is NCHW, block C channels-last (NHWC,
// and flat values), 8 or 16 oneDNN's blocked layouts (nChw16c).
struct NormTensor {
  int images = 0;
  norm_math::NormSets sets;
  int block = 1;
};

// y = (x - mean) * inverse_std * weight + bias, per set; mean and inverse_std get the statistics,
// (images, sets per image). No weight and bias (null): ones and zeros.
template <typename T>
void norm_forward(const NormTensor& t, const T* x, T* y, const float* weight, const float* bias,
                  float eps, float* mean, float* inverse_std);

// From the forward pass's x and statistics and dy: dx (null: not needed), and the weight and bias
// gradients summed over the images (null: not needed; overwritten). The sums over images run in
// image order whatever the threads, so results do not depend on the thread count.
template <typename T>
void norm_backward(const NormTensor& t, const T* x, const T* dy, T* dx, const float* weight,
                   const float* mean, const float* inverse_std, float* weight_grad,
                   float* bias_grad);

}  // namespace runner::onednn
