// CUDA kernels of layers that cuDNN lacks (leaky_relu and gelu have no cuDNN activation mode;
// layer_norm and group_norm): element-wise, from the shared host/device arithmetic in
// backends/common/, and the products with a broadcast factor of mul and scale.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "backends/common/activation_math.h"
#include "backends/common/norm_math.h"
#include "backends/cudnn/data_type.h"

namespace runner::cudnn::kernels {

// Every tensor here holds `type` elements (the activations'), computed in FP32; dropout's
// factors are FP32 whatever the activations are.

// y = f(x) over n values.
void activation_forward(activation_math::Activation kind, float negative_slope, const void* x,
                        void* y, std::size_t n, DataType type, cudaStream_t stream);
// dx = dy * f'(x) over n values (y = f(x), read by sigmoid and tanh).
void activation_backward(activation_math::Activation kind, float negative_slope, const void* x,
                         const void* y, const void* dy, void* dx, std::size_t n, DataType type,
                         cudaStream_t stream);

// Dropout in training: factors[i] = (kept ? 1 / (1 - p) : 0) for the mask of step *step
// (device memory, so a replayed CUDA graph uses the current step), y = x * factors.
void dropout_forward(std::uint64_t seed, const long long* step, std::uint64_t layer, float p,
                     const void* x, void* y, float* factors, std::size_t n, DataType type,
                     cudaStream_t stream);
// out[i] = a[i] * factors[i]: dropout's backward pass, dx = dy * factors.
void multiply(const void* a, const float* factors, void* out, std::size_t n, DataType type,
              cudaStream_t stream);

// out[i] = a[i] * b[(i / spread) % period] over n values: one factor of b per `spread`
// consecutive values, b's `period` factors over again (an (N, C, H, W) tensor times one factor
// per channel: spread H*W, period C; times one per image and channel: spread H*W, period N*C;
// one per value: 1, n). a and out hold `type` elements, b `b_type` ones (FP32 or `type`).
void multiply_broadcast(const void* a, DataType type, const void* b, DataType b_type, void* out,
                        std::size_t n, std::size_t spread, std::size_t period, cudaStream_t stream);
// The gradient of such a factor: out[g] = the sum over o < outer and p < spread of a[i] * b[i],
// i = (o * groups + g) * spread + p, for g < groups (a per-channel factor: outer N, groups C; a
// per-image-and-channel one: outer 1, groups N*C). a and b hold `type` elements, out `out_type`
// ones (FP32 or `type`); one block per g sums in FP32 in a fixed order.
void sum_products(const void* a, const void* b, DataType type, void* out, DataType out_type,
                  int groups, std::size_t outer, std::size_t spread, cudaStream_t stream);
// layer_norm (sets.groups 0) and group_norm forward on `images` NCHW images: y, and each set's
// mean and inverse standard deviation (images x sets.per_image() floats). No weight and bias
// (null): ones and zeros.
void norm_forward(const norm_math::NormSets& sets, int images, const void* x, void* y,
                  DataType type, const float* weight, const float* bias, float eps, float* mean,
                  float* inverse_std, cudaStream_t stream);
// Their backward pass from the forward pass's x and statistics: dx (null: not needed) and the
// weight and bias gradients over the batch (null: not needed; overwritten).
void norm_backward(const norm_math::NormSets& sets, int images, const void* x, const void* dy,
                   void* dx, DataType type, const float* weight, const float* mean,
                   const float* inverse_std, float* weight_grad, float* bias_grad,
                   cudaStream_t stream);

}  // namespace runner::cudnn::kernels
