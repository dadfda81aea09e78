// CUDA kernels of layers that cuDNN lacks (leaky_relu and gelu have no cuDNN activation mode):
// element-wise, from the shared host/device arithmetic in backends/common/.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "backends/common/activation_math.h"

namespace runner::cudnn::kernels {

// y = f(x) over n values.
void activation_forward(activation_math::Activation kind, float negative_slope, const float* x,
                        float* y, std::size_t n, cudaStream_t stream);
// dx = dy * f'(x) over n values (y = f(x), read by sigmoid and tanh).
void activation_backward(activation_math::Activation kind, float negative_slope, const float* x,
                         const float* y, const float* dy, float* dx, std::size_t n,
                         cudaStream_t stream);

// Dropout in training: factors[i] = (kept ? 1 / (1 - p) : 0) for the mask of step *step
// (device memory, so a replayed CUDA graph uses the current step), y = x * factors.
void dropout_forward(std::uint64_t seed, const long long* step, std::uint64_t layer, float p,
                     const float* x, float* y, float* factors, std::size_t n, cudaStream_t stream);
// out[i] = a[i] * b[i]: dropout's backward pass, dx = dy * factors.
void multiply(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream);

}  // namespace runner::cudnn::kernels
