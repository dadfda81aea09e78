// The attention softmax (attention_kernels.h): one warp per row, each lane reading every 32nd
// value (consecutive lanes, consecutive values), the row's maximum and sums reduced across the
// warp in a fixed order.
#include <cmath>

#include "backends/cudnn/attention_kernels.h"
#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/element_type.cuh"

namespace runner::cudnn::kernels {
namespace {

constexpr int kWarp = 32;
constexpr int kThreads = 256;  // 8 rows per block

__device__ __forceinline__ float warp_max(float v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// The warp's row, or -1 past the last (a whole warp leaves together: the shuffles need it).
__device__ __forceinline__ long long warp_row(int rows) {
  const long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  return row < rows ? row : -1;
}

template <typename T>
__global__ void softmax_kernel(T* x, int rows, int cols) {
  const long long row = warp_row(rows);
  if (row < 0) return;
  T* values = x + row * cols;
  const int lane = threadIdx.x % kWarp;
  float max = -INFINITY;
  for (int j = lane; j < cols; j += kWarp) max = fmaxf(max, to_float(values[j]));
  max = warp_max(max);
  float sum = 0.f;
  for (int j = lane; j < cols; j += kWarp) sum += expf(to_float(values[j]) - max);
  sum = warp_sum(sum);
  for (int j = lane; j < cols; j += kWarp)
    values[j] = from_float<T>(expf(to_float(values[j]) - max) / sum);
}

template <typename T>
__global__ void softmax_backward_kernel(const T* y, T* dx, int rows, int cols) {
  const long long row = warp_row(rows);
  if (row < 0) return;
  const T* out = y + row * cols;
  T* grad = dx + row * cols;
  const int lane = threadIdx.x % kWarp;
  float dot = 0.f;
  for (int j = lane; j < cols; j += kWarp) dot += to_float(out[j]) * to_float(grad[j]);
  dot = warp_sum(dot);
  for (int j = lane; j < cols; j += kWarp)
    grad[j] = from_float<T>(to_float(out[j]) * (to_float(grad[j]) - dot));
}

int blocks_for_rows(int rows) {
  const long long threads = static_cast<long long>(rows) * kWarp;
  return static_cast<int>((threads + kThreads - 1) / kThreads);
}

}  // namespace

void softmax_rows(void* x, int rows, int cols, DataType type, cudaStream_t stream) {
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    softmax_kernel<<<blocks_for_rows(rows), kThreads, 0, stream>>>(static_cast<T*>(x), rows, cols);
  });
  CUDA_CHECK(cudaGetLastError());
}

void softmax_rows_backward(const void* y, void* dx, int rows, int cols, DataType type,
                           cudaStream_t stream) {
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    softmax_backward_kernel<<<blocks_for_rows(rows), kThreads, 0, stream>>>(
        static_cast<const T*>(y), static_cast<T*>(dx), rows, cols);
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace runner::cudnn::kernels
