// Layer kernels (layer_kernels.h): grid-stride loops over the values; layer_norm and group_norm
// over their statistics sets.
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

// ---- layer_norm and group_norm (backends/common/norm_math.h) ----

constexpr int kNormThreads = 256;

// The sum of v over the block's threads, given to every thread; a fixed order, so deterministic.
__device__ float block_sum(float v, float* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  const float total = shared[0];
  __syncthreads();
  return total;
}

// Who walks a set's values: one thread (layer_norm on images: neighbouring threads read
// neighbouring positions, so the reads coalesce), or a block (sets of contiguous values:
// group_norm's groups, layer_norm's flat features).
struct ByThread {
  __device__ int first() const { return 0; }
  __device__ int step() const { return 1; }
  __device__ float total(float v) const { return v; }
  __device__ bool writes() const { return true; }
};
struct ByBlock {
  float* shared;
  __device__ int first() const { return threadIdx.x; }
  __device__ int step() const { return blockDim.x; }
  __device__ float total(float v) const { return block_sum(v, shared); }
  __device__ bool writes() const { return threadIdx.x == 0; }
};

template <typename T, typename Walk>
__device__ void norm_forward_set(const norm_math::NormSets& sets, long long s, Walk walk,
                                 const T* x, T* y, const float* w, const float* b, float eps,
                                 float* mean, float* inverse_std) {
  const int size = sets.size();
  float sum = 0.f;
  for (int j = walk.first(); j < size; j += walk.step()) sum += to_float(x[sets.nchw_offset(s, j)]);
  const float m = walk.total(sum) / size;
  float squares = 0.f;
  for (int j = walk.first(); j < size; j += walk.step()) {
    const float d = to_float(x[sets.nchw_offset(s, j)]) - m;
    squares += d * d;
  }
  const float r = norm_math::inverse_std(walk.total(squares) / size, eps);
  for (int j = walk.first(); j < size; j += walk.step()) {
    const long long at = sets.nchw_offset(s, j);
    const int c = sets.channel(s, j);
    y[at] =
        from_float<T>(norm_math::normalize(to_float(x[at]), m, r, w ? w[c] : 1.f, b ? b[c] : 0.f));
  }
  if (walk.writes()) {
    mean[s] = m;
    inverse_std[s] = r;
  }
}

template <typename T, typename Walk>
__device__ void norm_backward_set(const norm_math::NormSets& sets, long long s, Walk walk,
                                  const T* x, const T* dy, T* dx, const float* w, const float* mean,
                                  const float* inverse_std) {
  const int size = sets.size();
  const float m = mean[s], r = inverse_std[s];
  float sum_g = 0.f, sum_g_xhat = 0.f;
  for (int j = walk.first(); j < size; j += walk.step()) {
    const long long at = sets.nchw_offset(s, j);
    const float g = to_float(dy[at]) * (w ? w[sets.channel(s, j)] : 1.f);
    sum_g += g;
    sum_g_xhat += g * (to_float(x[at]) - m) * r;
  }
  const float mean_g = walk.total(sum_g) / size, mean_g_xhat = walk.total(sum_g_xhat) / size;
  for (int j = walk.first(); j < size; j += walk.step()) {
    const long long at = sets.nchw_offset(s, j);
    const float g = to_float(dy[at]) * (w ? w[sets.channel(s, j)] : 1.f);
    dx[at] = from_float<T>(
        norm_math::input_gradient(g, (to_float(x[at]) - m) * r, r, mean_g, mean_g_xhat));
  }
}

template <typename T>
__global__ void norm_forward_by_thread(norm_math::NormSets sets, long long count, const T* x, T* y,
                                       const float* w, const float* b, float eps, float* mean,
                                       float* inverse_std) {
  for (long long s = blockIdx.x * blockDim.x + threadIdx.x; s < count;
       s += static_cast<long long>(gridDim.x) * blockDim.x) {
    norm_forward_set(sets, s, ByThread{}, x, y, w, b, eps, mean, inverse_std);
  }
}

template <typename T>
__global__ void norm_forward_by_block(norm_math::NormSets sets, long long count, const T* x, T* y,
                                      const float* w, const float* b, float eps, float* mean,
                                      float* inverse_std) {
  __shared__ float shared[kNormThreads];
  for (long long s = blockIdx.x; s < count; s += gridDim.x) {
    norm_forward_set(sets, s, ByBlock{shared}, x, y, w, b, eps, mean, inverse_std);
  }
}

template <typename T>
__global__ void norm_backward_by_thread(norm_math::NormSets sets, long long count, const T* x,
                                        const T* dy, T* dx, const float* w, const float* mean,
                                        const float* inverse_std) {
  for (long long s = blockIdx.x * blockDim.x + threadIdx.x; s < count;
       s += static_cast<long long>(gridDim.x) * blockDim.x) {
    norm_backward_set(sets, s, ByThread{}, x, dy, dx, w, mean, inverse_std);
  }
}

template <typename T>
__global__ void norm_backward_by_block(norm_math::NormSets sets, long long count, const T* x,
                                       const T* dy, T* dx, const float* w, const float* mean,
                                       const float* inverse_std) {
  __shared__ float shared[kNormThreads];
  for (long long s = blockIdx.x; s < count; s += gridDim.x) {
    norm_backward_set(sets, s, ByBlock{shared}, x, dy, dx, w, mean, inverse_std);
  }
}

// A block per channel c: the sums over the batch's images and positions of dy * xhat (the
// weight's gradient) and of dy (the bias's).
template <typename T>
__global__ void norm_parameter_gradients(norm_math::NormSets sets, int images, const T* x,
                                         const T* dy, const float* mean, const float* inverse_std,
                                         float* weight_grad, float* bias_grad) {
  __shared__ float shared[kNormThreads];
  const int c = blockIdx.x;
  const long long count = static_cast<long long>(images) * sets.positions;
  float sum_dy_xhat = 0.f, sum_dy = 0.f;
  for (long long i = threadIdx.x; i < count; i += blockDim.x) {
    const long long n = i / sets.positions;
    const int p = static_cast<int>(i % sets.positions);
    const long long at = (n * sets.channels + c) * sets.positions + p;
    const long long s = n * sets.per_image() + sets.of(c, p);
    const float g = to_float(dy[at]);
    sum_dy_xhat += g * (to_float(x[at]) - mean[s]) * inverse_std[s];
    sum_dy += g;
  }
  sum_dy_xhat = block_sum(sum_dy_xhat, shared);
  sum_dy = block_sum(sum_dy, shared);
  if (threadIdx.x == 0) {
    if (weight_grad) weight_grad[c] = sum_dy_xhat;
    if (bias_grad) bias_grad[c] = sum_dy;
  }
}

// Whether a block walks each set: its values are contiguous (groups, flat features).
bool norm_by_block(const norm_math::NormSets& sets) {
  return sets.groups != 0 || sets.positions == 1;
}

int norm_blocks(long long sets) {
  return static_cast<int>(std::min<long long>(sets, 65535));
}

}  // namespace

void norm_forward(const norm_math::NormSets& sets, int images, const void* x, void* y,
                  DataType type, const float* weight, const float* bias, float eps, float* mean,
                  float* inverse_std, cudaStream_t stream) {
  const long long count = static_cast<long long>(images) * sets.per_image();
  if (count == 0) return;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    const T* in = static_cast<const T*>(x);
    T* out = static_cast<T*>(y);
    if (norm_by_block(sets)) {
      norm_forward_by_block<<<norm_blocks(count), kNormThreads, 0, stream>>>(
          sets, count, in, out, weight, bias, eps, mean, inverse_std);
    } else {
      norm_forward_by_thread<<<blocks_for(count), kThreads, 0, stream>>>(
          sets, count, in, out, weight, bias, eps, mean, inverse_std);
    }
  });
  CUDA_CHECK(cudaGetLastError());
}

void norm_backward(const norm_math::NormSets& sets, int images, const void* x, const void* dy,
                   void* dx, DataType type, const float* weight, const float* mean,
                   const float* inverse_std, float* weight_grad, float* bias_grad,
                   cudaStream_t stream) {
  const long long count = static_cast<long long>(images) * sets.per_image();
  if (count == 0) return;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    const T *in = static_cast<const T*>(x), *grad = static_cast<const T*>(dy);
    if (weight_grad || bias_grad) {
      norm_parameter_gradients<<<sets.channels, kNormThreads, 0, stream>>>(
          sets, images, in, grad, mean, inverse_std, weight_grad, bias_grad);
    }
    if (!dx) return;
    T* out = static_cast<T*>(dx);
    if (norm_by_block(sets)) {
      norm_backward_by_block<<<norm_blocks(count), kNormThreads, 0, stream>>>(
          sets, count, in, grad, out, weight, mean, inverse_std);
    } else {
      norm_backward_by_thread<<<blocks_for(count), kThreads, 0, stream>>>(
          sets, count, in, grad, out, weight, mean, inverse_std);
    }
  });
  CUDA_CHECK(cudaGetLastError());
}

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
