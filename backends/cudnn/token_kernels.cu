// Token kernels (token_kernels.h): grid-stride loops over the output values.
#include <algorithm>

#include "backends/common/dropout_math.h"
#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/element_type.cuh"
#include "backends/cudnn/token_kernels.h"

namespace runner::cudnn::kernels {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t n) {
  return static_cast<int>(
      std::max<std::size_t>(1, std::min<std::size_t>((n + kThreads - 1) / kThreads, 8192)));
}

#define RUNNER_GRID_STRIDE(i, n)                                                                 \
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)

template <typename T>
__global__ void transpose_kernel(const T* x, T* y, int rows, int cols, std::size_t n) {
  const std::size_t image = static_cast<std::size_t>(rows) * cols;
  RUNNER_GRID_STRIDE(o, n) {  // o: y's index, (image, j, i)
    const std::size_t k = o % image;
    const std::size_t j = k / rows, i = k % rows;
    y[o] = x[o - k + i * cols + j];
  }
}

template <typename T>
__global__ void prepend_kernel(const T* x, const float* token, T* y, int tokens, int features,
                               std::size_t n) {
  const std::size_t out_image = static_cast<std::size_t>(tokens + 1) * features;
  const std::size_t in_image = static_cast<std::size_t>(tokens) * features;
  RUNNER_GRID_STRIDE(o, n) {
    const std::size_t image = o / out_image, k = o % out_image;
    y[o] = k < static_cast<std::size_t>(features) ? from_float<T>(token[k])
                                                  : x[image * in_image + k - features];
  }
}

template <typename T>
__global__ void drop_first_kernel(const T* dy, T* dx, int tokens, int features, std::size_t n) {
  const std::size_t in_image = static_cast<std::size_t>(tokens) * features;
  RUNNER_GRID_STRIDE(i, n) {  // i: dx's index
    const std::size_t image = i / in_image;
    dx[i] = dy[i + (image + 1) * features];
  }
}

template <typename T>
__global__ void sum_images_kernel(const T* a, int images, std::size_t stride, std::size_t count,
                                  float* out) {
  RUNNER_GRID_STRIDE(i, count) {
    float sum = 0.f;
    for (int n = 0; n < images; ++n) sum += to_float(a[n * stride + i]);
    out[i] = sum;
  }
}

template <typename T>
__global__ void add_to_images_kernel(const T* x, const float* position, T* y, std::size_t image,
                                     std::size_t n) {
  RUNNER_GRID_STRIDE(i, n) {
    y[i] = from_float<T>(to_float(x[i]) + position[i % image]);
  }
}

template <typename T>
__global__ void select_kernel(const T* x, T* y, int tokens, int features, bool mean,
                              std::size_t n) {
  RUNNER_GRID_STRIDE(o, n) {  // o: y's index, (image, c)
    const T* image = x + o / features * tokens * features + o % features;
    if (!mean) {
      y[o] = image[0];
      continue;
    }
    float sum = 0.f;
    for (int t = 0; t < tokens; ++t) sum += to_float(image[static_cast<std::size_t>(t) * features]);
    y[o] = from_float<T>(sum / static_cast<float>(tokens));
  }
}

template <typename T>
__global__ void select_backward_kernel(const T* dy, T* dx, int tokens, int features, bool mean,
                                       std::size_t n) {
  const std::size_t image = static_cast<std::size_t>(tokens) * features;
  const float share = mean ? 1.f / static_cast<float>(tokens) : 1.f;
  RUNNER_GRID_STRIDE(i, n) {  // i: dx's index, (image, t, c)
    const std::size_t k = i % image;
    const bool reached = mean || k < static_cast<std::size_t>(features);
    dx[i] =
        from_float<T>(reached ? to_float(dy[i / image * features + k % features]) * share : 0.f);
  }
}

__global__ void drop_path_kernel(std::uint64_t seed, const long long* step, std::uint64_t layer,
                                 float p, float* factors, int images) {
  const std::uint64_t key = dropout_math::step_key(seed, static_cast<std::uint64_t>(*step), layer);
  RUNNER_GRID_STRIDE(n, static_cast<std::size_t>(images)) {
    factors[n] = dropout_math::drop_path_factor(key, n, p);
  }
}

}  // namespace

void transpose_images(const void* x, void* y, int images, int rows, int cols, DataType type,
                      cudaStream_t stream) {
  const std::size_t n = static_cast<std::size_t>(images) * rows * cols;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    transpose_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(x),
                                                             static_cast<T*>(y), rows, cols, n);
  });
  CUDA_CHECK(cudaGetLastError());
}

void prepend_token(const void* x, const float* token, void* y, int images, int tokens, int features,
                   DataType type, cudaStream_t stream) {
  const std::size_t n = static_cast<std::size_t>(images) * (tokens + 1) * features;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    prepend_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(x), token,
                                                           static_cast<T*>(y), tokens, features, n);
  });
  CUDA_CHECK(cudaGetLastError());
}

void drop_first_token(const void* dy, void* dx, int images, int tokens, int features, DataType type,
                      cudaStream_t stream) {
  const std::size_t n = static_cast<std::size_t>(images) * tokens * features;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    drop_first_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
        static_cast<const T*>(dy), static_cast<T*>(dx), tokens, features, n);
  });
  CUDA_CHECK(cudaGetLastError());
}

void sum_images(const void* a, DataType type, int images, std::size_t stride, std::size_t count,
                float* out, cudaStream_t stream) {
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    sum_images_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const T*>(a), images,
                                                                  stride, count, out);
  });
  CUDA_CHECK(cudaGetLastError());
}

void add_to_images(const void* x, const float* position, void* y, int images, std::size_t image,
                   DataType type, cudaStream_t stream) {
  const std::size_t n = static_cast<std::size_t>(images) * image;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    add_to_images_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(x), position,
                                                                 static_cast<T*>(y), image, n);
  });
  CUDA_CHECK(cudaGetLastError());
}

void select_tokens(const void* x, void* y, int images, int tokens, int features, bool mean,
                   DataType type, cudaStream_t stream) {
  const std::size_t n = static_cast<std::size_t>(images) * features;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    select_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), tokens, features, mean, n);
  });
  CUDA_CHECK(cudaGetLastError());
}

void select_tokens_backward(const void* dy, void* dx, int images, int tokens, int features,
                            bool mean, DataType type, cudaStream_t stream) {
  const std::size_t n = static_cast<std::size_t>(images) * tokens * features;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    select_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
        static_cast<const T*>(dy), static_cast<T*>(dx), tokens, features, mean, n);
  });
  CUDA_CHECK(cudaGetLastError());
}

void drop_path_factors(std::uint64_t seed, const long long* step, std::uint64_t layer, float p,
                       float* factors, int images, cudaStream_t stream) {
  drop_path_kernel<<<blocks_for(images), kThreads, 0, stream>>>(seed, step, layer, p, factors,
                                                                images);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace runner::cudnn::kernels
