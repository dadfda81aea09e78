// Element-wise layer kernels (layer_kernels.h): grid-stride loops over the values.
#include <algorithm>

#include "backends/common/dropout_math.h"
#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/element_type.cuh"
#include "backends/cudnn/layer_kernels.h"

namespace runner::cudnn::kernels {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t n) {
  return static_cast<int>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 8192));
}

template <typename T>
__global__ void activation_forward_kernel(activation_math::Activation kind, float slope, const T* x,
                                          T* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    y[i] = from_float<T>(activation_math::forward(kind, to_float(x[i]), slope));
  }
}

template <typename T>
__global__ void activation_backward_kernel(activation_math::Activation kind, float slope,
                                           const T* x, const T* y, const T* dy, T* dx,
                                           std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    dx[i] = from_float<T>(to_float(dy[i]) *
                          activation_math::derivative(kind, to_float(x[i]), to_float(y[i]), slope));
  }
}

template <typename T>
__global__ void dropout_kernel(std::uint64_t seed, const long long* step, std::uint64_t layer,
                               float p, const T* x, T* y, float* factors, std::size_t n) {
  const std::uint64_t key = dropout_math::step_key(seed, static_cast<std::uint64_t>(*step), layer);
  const float scale = 1.f / (1.f - p);
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    factors[i] = dropout_math::keeps(key, i, p) ? scale : 0.f;
    y[i] = from_float<T>(to_float(x[i]) * factors[i]);
  }
}

template <typename T, typename B>
__global__ void multiply_kernel(const T* a, const B* b, T* out, std::size_t n, std::size_t spread,
                                std::size_t period) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = from_float<T>(to_float(a[i]) * to_float(b[i / spread % period]));
  }
}

// One block per group g: each thread sums its share of the group's values, then the block adds
// the kThreads partial sums pairwise.
template <typename T, typename Out>
__global__ void sum_products_kernel(const T* a, const T* b, Out* out, int groups, std::size_t outer,
                                    std::size_t spread) {
  __shared__ float partial[kThreads];
  const std::size_t g = blockIdx.x, count = outer * spread;
  float sum = 0.f;
  for (std::size_t k = threadIdx.x; k < count; k += blockDim.x) {
    const std::size_t i = (k / spread * groups + g) * spread + k % spread;
    sum += to_float(a[i]) * to_float(b[i]);
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[g] = from_float<Out>(partial[0]);
}

// Calls f(Element<T>{}, Element<U>{}) with T the C++ type of `type` and U that of `other`, which
// is FP32 or `type`.
template <typename F>
void with_elements(DataType type, DataType other, F&& f) {
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    if (other == DataType::f32) {
      f(element, Element<float>{});
    } else {
      f(element, Element<T>{});
    }
  });
}

}  // namespace

void dropout_forward(std::uint64_t seed, const long long* step, std::uint64_t layer, float p,
                     const void* x, void* y, float* factors, std::size_t n, DataType type,
                     cudaStream_t stream) {
  if (n == 0) return;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    dropout_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
        seed, step, layer, p, static_cast<const T*>(x), static_cast<T*>(y), factors, n);
  });
  CUDA_CHECK(cudaGetLastError());
}

void multiply(const void* a, const float* factors, void* out, std::size_t n, DataType type,
              cudaStream_t stream) {
  multiply_broadcast(a, type, factors, DataType::f32, out, n, 1, n, stream);
}

void multiply_broadcast(const void* a, DataType type, const void* b, DataType b_type, void* out,
                        std::size_t n, std::size_t spread, std::size_t period,
                        cudaStream_t stream) {
  if (n == 0) return;
  with_elements(type, b_type, [&](auto element, auto b_element) {
    using T = typename decltype(element)::type;
    using B = typename decltype(b_element)::type;
    multiply_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
        static_cast<const T*>(a), static_cast<const B*>(b), static_cast<T*>(out), n, spread,
        period);
  });
  CUDA_CHECK(cudaGetLastError());
}

void sum_products(const void* a, const void* b, DataType type, void* out, DataType out_type,
                  int groups, std::size_t outer, std::size_t spread, cudaStream_t stream) {
  if (groups == 0) return;
  with_elements(type, out_type, [&](auto element, auto out_element) {
    using T = typename decltype(element)::type;
    using Out = typename decltype(out_element)::type;
    sum_products_kernel<<<groups, kThreads, 0, stream>>>(
        static_cast<const T*>(a), static_cast<const T*>(b), static_cast<Out*>(out), groups, outer,
        spread);
  });
  CUDA_CHECK(cudaGetLastError());
}

void activation_forward(activation_math::Activation kind, float negative_slope, const void* x,
                        void* y, std::size_t n, DataType type, cudaStream_t stream) {
  if (n == 0) return;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    activation_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
        kind, negative_slope, static_cast<const T*>(x), static_cast<T*>(y), n);
  });
  CUDA_CHECK(cudaGetLastError());
}

void activation_backward(activation_math::Activation kind, float negative_slope, const void* x,
                         const void* y, const void* dy, void* dx, std::size_t n, DataType type,
                         cudaStream_t stream) {
  if (n == 0) return;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    activation_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
        kind, negative_slope, static_cast<const T*>(x), static_cast<const T*>(y),
        static_cast<const T*>(dy), static_cast<T*>(dx), n);
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace runner::cudnn::kernels
