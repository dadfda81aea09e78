// Mixed-precision kernels (precision_kernels.h): grid-stride loops, one block per channel for
// the bias gradient.
#include <algorithm>

#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/element_type.cuh"
#include "backends/cudnn/precision_kernels.h"

namespace runner::cudnn::kernels {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t n) {
  return static_cast<int>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 8192));
}

template <typename From, typename To>
__global__ void convert_kernel(const From* from, To* to, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    to[i] = from_float<To>(to_float(from[i]));
  }
}

__global__ void find_non_finite_kernel(const float* values, std::size_t n, int* found) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (!isfinite(values[i])) *found = 1;  // every writer writes the same value
  }
}

template <typename T>
__global__ void add_bias_channels_kernel(T* y, const float* bias, int c, int hw,
                                         std::size_t total) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const int channel = static_cast<int>((i / hw) % c);
    y[i] = from_float<T>(to_float(y[i]) + bias[channel]);
  }
}

template <typename T>
__global__ void sum_channels_kernel(const T* dy, int n, int c, int hw, float* out) {
  __shared__ float partial[kThreads];
  const int channel = blockIdx.x;
  const std::size_t per_channel = static_cast<std::size_t>(n) * hw;
  float sum = 0.f;
  for (std::size_t j = threadIdx.x; j < per_channel; j += blockDim.x) {
    const std::size_t image = j / hw, within = j % hw;
    sum += to_float(dy[(image * c + channel) * hw + within]);
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[channel] = partial[0];
}

}  // namespace

void convert(const void* from, DataType from_type, void* to, DataType to_type, std::size_t n,
             cudaStream_t stream) {
  if (n == 0) return;
  with_element(from_type, [&](auto source) {
    using From = typename decltype(source)::type;
    with_element(to_type, [&](auto target) {
      using To = typename decltype(target)::type;
      convert_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const From*>(from),
                                                             static_cast<To*>(to), n);
    });
  });
  CUDA_CHECK(cudaGetLastError());
}

void find_non_finite(const float* values, std::size_t n, int* found, cudaStream_t stream) {
  if (n == 0) return;
  find_non_finite_kernel<<<blocks_for(n), kThreads, 0, stream>>>(values, n, found);
  CUDA_CHECK(cudaGetLastError());
}

void add_bias_channels(void* y, DataType type, const float* bias, int n, int c, int hw,
                       cudaStream_t stream) {
  const std::size_t total = static_cast<std::size_t>(n) * c * hw;
  if (total == 0) return;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    add_bias_channels_kernel<<<blocks_for(total), kThreads, 0, stream>>>(static_cast<T*>(y), bias,
                                                                         c, hw, total);
  });
  CUDA_CHECK(cudaGetLastError());
}

void sum_channels(const void* dy, DataType type, int n, int c, int hw, float* out,
                  cudaStream_t stream) {
  if (c == 0) return;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    sum_channels_kernel<<<c, kThreads, 0, stream>>>(static_cast<const T*>(dy), n, c, hw, out);
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace runner::cudnn::kernels
