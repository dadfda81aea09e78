// Element-wise layer kernels (layer_kernels.h): grid-stride loops over the values.
#include <algorithm>

#include "backends/common/dropout_math.h"
#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/layer_kernels.h"

namespace runner::cudnn::kernels {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t n) {
  return static_cast<int>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 8192));
}

__global__ void activation_forward_kernel(activation_math::Activation kind, float slope,
                                          const float* x, float* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    y[i] = activation_math::forward(kind, x[i], slope);
  }
}

__global__ void activation_backward_kernel(activation_math::Activation kind, float slope,
                                           const float* x, const float* y, const float* dy,
                                           float* dx, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    dx[i] = dy[i] * activation_math::derivative(kind, x[i], y[i], slope);
  }
}

__global__ void dropout_kernel(std::uint64_t seed, const long long* step, std::uint64_t layer,
                               float p, const float* x, float* y, float* factors, std::size_t n) {
  const std::uint64_t key = dropout_math::step_key(seed, static_cast<std::uint64_t>(*step), layer);
  const float scale = 1.f / (1.f - p);
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    factors[i] = dropout_math::keeps(key, i, p) ? scale : 0.f;
    y[i] = x[i] * factors[i];
  }
}

__global__ void multiply_kernel(const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = a[i] * b[i];
  }
}

}  // namespace

void dropout_forward(std::uint64_t seed, const long long* step, std::uint64_t layer, float p,
                     const float* x, float* y, float* factors, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  dropout_kernel<<<blocks_for(n), kThreads, 0, stream>>>(seed, step, layer, p, x, y, factors, n);
  CUDA_CHECK(cudaGetLastError());
}

void multiply(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  multiply_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, b, out, n);
  CUDA_CHECK(cudaGetLastError());
}

void activation_forward(activation_math::Activation kind, float negative_slope, const float* x,
                        float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  activation_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(kind, negative_slope, x, y, n);
  CUDA_CHECK(cudaGetLastError());
}

void activation_backward(activation_math::Activation kind, float negative_slope, const float* x,
                         const float* y, const float* dy, float* dx, std::size_t n,
                         cudaStream_t stream) {
  if (n == 0) return;
  activation_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(kind, negative_slope, x, y, dy,
                                                                     dx, n);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace runner::cudnn::kernels
