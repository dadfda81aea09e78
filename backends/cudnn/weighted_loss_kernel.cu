// The weighted and focal loss kernel: the batch's summed true-class weight first, then each
// image's loss and gradient as backends/common/weighted_cross_entropy.cpp computes them (each
// class's term from weighted_loss_math).
#include "backends/common/weighted_loss_math.h"
#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/element_type.cuh"
#include "backends/cudnn/weighted_loss_kernel.h"

namespace runner::cudnn::kernels {
namespace {

constexpr int kWeightedLossThreads = 256;

// The block's sum of one value per thread, in a fixed order; every thread gets it.
__device__ double block_sum(double value, double* partial) {
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int stride = kWeightedLossThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const double sum = partial[0];
  __syncthreads();  // partial is reused
  return sum;
}

template <typename T>
__global__ void weighted_loss_kernel(const T* logits, const std::int32_t* labels,
                                     const int* count_ptr, int rows, int classes,
                                     double label_smoothing, const float* class_weights,
                                     double gamma, T* grad, const float* loss_scale,
                                     double* loss_sum) {
  __shared__ double partial[kWeightedLossThreads];
  const int count = *count_ptr;
  auto weight = [class_weights](int k) { return class_weights ? class_weights[k] : 1.f; };
  double own_weight = 0;
  for (int r = threadIdx.x; r < count; r += blockDim.x) own_weight += weight(labels[r]);
  const double batch_weight = block_sum(own_weight, partial);
  const double scale = batch_weight > 0 ? 1.0 / batch_weight : 0.0;
  double total = 0;
  for (int r = threadIdx.x; r < rows; r += blockDim.x) {
    const T* row = logits + static_cast<std::size_t>(r) * classes;
    T* g = grad + static_cast<std::size_t>(r) * classes;
    if (r >= count) {
      for (int k = 0; k < classes; ++k) g[k] = from_float<T>(0.f);
      continue;
    }
    auto z = [row](int k) { return static_cast<double>(to_float(row[k])); };
    double max = z(0);
    for (int k = 1; k < classes; ++k) max = z(k) > max ? z(k) : max;
    double sum = 0;
    for (int k = 0; k < classes; ++k) sum += exp(z(k) - max);
    const double log_sum = log(sum) + max;
    const int label = labels[r];
    // Two passes over the classes: sum_k a_k first, then each gradient (no per-class storage).
    auto term = [&](int k) {
      const double target = weighted_loss_math::target(k, label, classes, label_smoothing);
      return weighted_loss_math::class_term(z(k) - log_sum, target * weight(k), gamma);
    };
    double a_sum = 0;
    for (int k = 0; k < classes; ++k) {
      const weighted_loss_math::ClassTerm t = term(k);
      total += t.loss;
      a_sum += t.a;
    }
    for (int k = 0; k < classes; ++k) {
      const weighted_loss_math::ClassTerm t = term(k);
      const float value = static_cast<float>((t.a - t.p * a_sum) * scale);
      g[k] = from_float<T>(loss_scale ? value * *loss_scale : value);
    }
  }
  const double batch_total = block_sum(total, partial);
  if (threadIdx.x == 0 && batch_weight > 0) *loss_sum += batch_total * count / batch_weight;
}

}  // namespace

void weighted_softmax_cross_entropy(const void* logits, const std::int32_t* labels,
                                    const int* count, int rows, int classes, double label_smoothing,
                                    const float* class_weights, double focal_gamma, void* grad,
                                    DataType type, const float* loss_scale, double* loss_sum,
                                    cudaStream_t stream) {
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    weighted_loss_kernel<<<1, kWeightedLossThreads, 0, stream>>>(
        static_cast<const T*>(logits), labels, count, rows, classes, label_smoothing, class_weights,
        focal_gamma, static_cast<T*>(grad), loss_scale, loss_sum);
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace runner::cudnn::kernels
