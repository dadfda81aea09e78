// Kernels for normalisation, the loss, the optimizers, bias rows and sums; one purpose each.
#include <algorithm>

#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/element_type.cuh"
#include "backends/cudnn/kernels.h"

namespace runner::cudnn::kernels {
namespace {

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n elements.
int blocks_for(std::size_t n) {
  return static_cast<int>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 8192));
}

// The byte at `within` (c, y, x) of held row `row` after augmentation: read from where
// augment_math::source_pixel says, 0 for padding, exactly as runner/data/augment.cpp does.
__device__ std::uint8_t augmented_byte(const BatchSource& source, std::size_t row,
                                       std::size_t per_image, std::size_t within, int height,
                                       int width) {
  const std::size_t pixels = static_cast<std::size_t>(height) * width;
  const std::size_t c = within / pixels, pixel = within % pixels;
  int y = static_cast<int>(pixel / width), x = static_cast<int>(pixel % width);
  const augment_math::Choices choices = augment_math::choose(source.augment, *source.epoch, row);
  if (!augment_math::source_pixel(source.augment, choices, height, width, y, x)) return 0;
  return source.images[row * per_image + c * pixels + static_cast<std::size_t>(y) * width + x];
}

// The normalised FP32 value at `within` (c, y, x) of batch image n (n < count).
__device__ float normalized_value(const BatchSource& source, std::size_t n, std::size_t within,
                                  bool augment, std::size_t per_image, int height, int width,
                                  const float* scale, const float* shift) {
  const std::size_t row = source.rows ? static_cast<std::size_t>(source.rows[n]) : n;
  const int c = static_cast<int>(within / (static_cast<std::size_t>(height) * width));
  const std::uint8_t byte = augment ? augmented_byte(source, row, per_image, within, height, width)
                                    : source.images[row * per_image + within];
  return static_cast<float>(byte) * scale[c] + shift[c];
}

template <typename T>
__global__ void load_batch_kernel(BatchSource source, int batch, int channels, int height,
                                  int width, const float* scale, const float* shift, T* out,
                                  std::int32_t* labels_out, batch_mix::BatchMix* mix_out) {
  const int count = *source.count;
  const int pixels = height * width;
  const bool augment = source.rows && source.epoch && source.augment.count > 0;
  const batch_mix::BatchMix mix = source.mix ? *source.mix : batch_mix::BatchMix{};
  const bool mixed = batch_mix::active(mix);
  const std::size_t per_image = static_cast<std::size_t>(channels) * pixels;
  const std::size_t total = static_cast<std::size_t>(batch) * per_image;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  for (std::size_t i = first; i < total; i += stride) {
    const std::size_t n = i / per_image, within = i % per_image;
    if (n >= static_cast<std::size_t>(count)) {
      out[i] = from_float<T>(0.f);
      continue;
    }
    float value =
        normalized_value(source, n, within, augment, per_image, height, width, scale, shift);
    if (mixed) {
      const std::size_t other = batch_mix::partner(static_cast<int>(n), count);
      const float partner =
          normalized_value(source, other, within, augment, per_image, height, width, scale, shift);
      const int pixel = static_cast<int>(within % pixels);
      value = batch_mix::mixed_value(mix, pixel / width, pixel % width, value, partner);
    }
    out[i] = from_float<T>(value);
  }
  if (mix_out && first == 0) *mix_out = mix;
  if (!labels_out) return;
  for (std::size_t n = first; n <= static_cast<std::size_t>(batch); n += stride) {
    if (n == static_cast<std::size_t>(batch)) {
      labels_out[n] = count;
    } else if (n < static_cast<std::size_t>(count)) {
      labels_out[n] = source.labels[source.rows ? source.rows[n] : n];
    } else {
      labels_out[n] = 0;
    }
  }
}

constexpr int kLossThreads = 256;

template <typename T>
__global__ void softmax_cross_entropy_kernel(const T* logits, const std::int32_t* labels,
                                             const int* count_ptr, int rows, int classes,
                                             double label_smoothing,
                                             const batch_mix::BatchMix* mix_ptr, T* grad,
                                             const float* loss_scale, double* loss_sum) {
  __shared__ double partial[kLossThreads];
  const int count = *count_ptr;
  const float inverse_count = count > 0 ? 1.f / static_cast<float>(count) : 0.f;
  const float spread = static_cast<float>(label_smoothing / classes) * inverse_count;
  const float on_label = static_cast<float>(1 - label_smoothing) * inverse_count;
  const bool mixed = mix_ptr && batch_mix::active(*mix_ptr);
  const double lam = mixed ? mix_ptr->lam : 1.0;
  double total = 0;
  for (int r = threadIdx.x; r < rows; r += blockDim.x) {
    const T* row = logits + static_cast<std::size_t>(r) * classes;
    T* g = grad + static_cast<std::size_t>(r) * classes;
    if (r >= count) {
      for (int k = 0; k < classes; ++k) g[k] = from_float<T>(0.f);
      continue;
    }
    auto z = [row](int k) { return to_float(row[k]); };
    float max = z(0);
    for (int k = 1; k < classes; ++k) max = z(k) > max ? z(k) : max;
    double sum = 0;
    for (int k = 0; k < classes; ++k) sum += exp(static_cast<double>(z(k) - max));
    const double log_sum = log(sum) + max;
    const int label = labels[r];
    // Mixed: the partner's label shares the target (host_math's MixedLabels).
    const int other = mixed ? labels[batch_mix::partner(r, count)] : label;
    const double z_target = mixed ? lam * z(label) + (1 - lam) * z(other) : z(label);
    total += log_sum - z_target;
    if (label_smoothing != 0) {
      double mean_z = 0;
      for (int k = 0; k < classes; ++k) mean_z += z(k);
      total += label_smoothing * (z_target - mean_z / classes);
    }
    // In FP32, then scaled (fp16) and rounded once to T.
    auto store = [&](int k, float value) {
      g[k] = from_float<T>(loss_scale ? value * *loss_scale : value);
    };
    const float on_own = mixed ? static_cast<float>(lam) * on_label : on_label;
    const float on_other = mixed ? static_cast<float>(1 - lam) * on_label : 0.f;
    for (int k = 0; k < classes; ++k) {
      float value = static_cast<float>(exp(z(k) - log_sum)) * inverse_count - spread;
      if (k == label) value -= on_own;
      if (k == other) value -= on_other;
      store(k, value);
    }
  }
  partial[threadIdx.x] = total;
  __syncthreads();
  for (int stride = kLossThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) *loss_sum += partial[0];
}

__global__ void begin_step_kernel(StepScalars* s, OptimizerConstants c) {
  s->skip = s->found_inf;
  s->found_inf = 0;  // for the next step's gradients
  if (c.loss_scaling) {
    s->grad_scale = loss_scale_math::unscale_factor(s->loss);  // of the scale this step used
    loss_scale_math::update(s->loss, s->skip != 0, loss_scale_math::Settings{});
    if (s->skip) return;  // as GradScaler skips optimizer.step(): no step counted
  } else {
    s->grad_scale = 1.f;  // until clip_gradients_kernel says otherwise
  }
  s->step += 1;
  s->factors = optimizer_math::step_factors(s->step, s->lr, s->beta1, c.beta2,
                                            static_cast<float>(s->momentum), c.one_minus_dampening);
}

__global__ void sgd_kernel(float* value, const float* grad, float* buffer, std::size_t n,
                           SgdSettings s, const StepScalars* scalars) {
  if (scalars->skip) return;
  const optimizer_math::StepFactors f = scalars->factors;
  s.lr = static_cast<float>(scalars->lr);  // the host's rounding (host_math.cpp)
  s.momentum = static_cast<float>(scalars->momentum);
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    optimizer_math::sgd_step(value[i], grad[i] * scalars->grad_scale, buffer ? buffer + i : nullptr,
                             s, f);
  }
}

__global__ void adam_kernel(float* value, const float* grad, float* m, float* v, std::size_t n,
                            AdamSettings s, double decoupled_decay, const StepScalars* scalars) {
  if (scalars->skip) return;
  const optimizer_math::StepFactors f = scalars->factors;
  s.beta1 = static_cast<float>(scalars->beta1);
  if (decoupled_decay != 0) s.keep = static_cast<float>(1 - scalars->lr * decoupled_decay);
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    optimizer_math::adam_step(value[i], grad[i] * scalars->grad_scale, m[i], v[i], s, f);
  }
}

// One block: *out = the sum of the squares of values[0..n), in double, in a fixed order.
__global__ void sum_of_squares_kernel(const float* values, std::size_t n, double* out) {
  __shared__ double partial[kThreads];
  double sum = 0;
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) {
    sum += static_cast<double>(values[i]) * values[i];
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = partial[0];
}

__global__ void clip_gradients_kernel(const double* squares, int count, float max_norm,
                                      StepScalars* s) {
  double sum = 0;
  for (int k = 0; k < count; ++k) sum += squares[k];
  if (s->skip) return;  // a non-finite norm: nothing is updated, nothing is logged
  // grad_scale is 1 without loss scaling: the product is then exactly the norm and the factor.
  const double norm = sqrt(sum) * s->grad_scale;
  s->grad_norm_sum += norm;
  s->grad_scale *= optimizer_math::clip_factor(static_cast<float>(norm), max_norm);
}

template <typename T>
__global__ void add_bias_rows_kernel(T* y, const float* bias, int cols, std::size_t total) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    y[i] = from_float<T>(to_float(y[i]) + bias[i % cols]);
  }
}

template <typename T>
__global__ void sum_kernel(T* out, SumInputs inputs, std::size_t n, bool accumulate) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    float sum = accumulate ? to_float(out[i]) : 0.f;
    for (int k = 0; k < inputs.count; ++k)
      sum += to_float(static_cast<const T*>(inputs.data[k])[i]);
    out[i] = from_float<T>(sum);
  }
}

}  // namespace

void load_batch(BatchSource source, int batch, int channels, int height, int width,
                const float* scale, const float* shift, void* out, DataType out_type,
                std::int32_t* labels_out, batch_mix::BatchMix* mix_out, cudaStream_t stream) {
  const std::size_t total = static_cast<std::size_t>(batch) * channels * height * width;
  if (total == 0) return;
  with_element(out_type, [&](auto element) {
    using T = typename decltype(element)::type;
    load_batch_kernel<<<blocks_for(total), kThreads, 0, stream>>>(
        source, batch, channels, height, width, scale, shift, static_cast<T*>(out), labels_out,
        mix_out);
  });
  CUDA_CHECK(cudaGetLastError());
}

void softmax_cross_entropy(const void* logits, const std::int32_t* labels, const int* count,
                           int rows, int classes, double label_smoothing,
                           const batch_mix::BatchMix* mix, void* grad, DataType type,
                           const float* loss_scale, double* loss_sum, cudaStream_t stream) {
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    softmax_cross_entropy_kernel<<<1, kLossThreads, 0, stream>>>(
        static_cast<const T*>(logits), labels, count, rows, classes, label_smoothing, mix,
        static_cast<T*>(grad), loss_scale, loss_sum);
  });
  CUDA_CHECK(cudaGetLastError());
}

void begin_step(StepScalars* scalars, OptimizerConstants constants, cudaStream_t stream) {
  begin_step_kernel<<<1, 1, 0, stream>>>(scalars, constants);
  CUDA_CHECK(cudaGetLastError());
}

void sgd_update(float* value, const float* grad, float* buffer, std::size_t n, SgdSettings s,
                const StepScalars* scalars, cudaStream_t stream) {
  if (n == 0) return;
  sgd_kernel<<<blocks_for(n), kThreads, 0, stream>>>(value, grad, buffer, n, s, scalars);
  CUDA_CHECK(cudaGetLastError());
}

void adam_update(float* value, const float* grad, float* exp_avg, float* exp_avg_sq, std::size_t n,
                 AdamSettings s, double decoupled_decay, const StepScalars* scalars,
                 cudaStream_t stream) {
  if (n == 0) return;
  adam_kernel<<<blocks_for(n), kThreads, 0, stream>>>(value, grad, exp_avg, exp_avg_sq, n, s,
                                                      decoupled_decay, scalars);
  CUDA_CHECK(cudaGetLastError());
}

void sum_of_squares(const float* values, std::size_t n, double* out, cudaStream_t stream) {
  sum_of_squares_kernel<<<1, kThreads, 0, stream>>>(values, n, out);
  CUDA_CHECK(cudaGetLastError());
}

void clip_gradients(const double* squares, int count, float max_norm, StepScalars* scalars,
                    cudaStream_t stream) {
  clip_gradients_kernel<<<1, 1, 0, stream>>>(squares, count, max_norm, scalars);
  CUDA_CHECK(cudaGetLastError());
}

void add_bias_rows(void* y, DataType type, const float* bias, int rows, int cols,
                   cudaStream_t stream) {
  const std::size_t total = static_cast<std::size_t>(rows) * cols;
  if (total == 0) return;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    add_bias_rows_kernel<<<blocks_for(total), kThreads, 0, stream>>>(static_cast<T*>(y), bias, cols,
                                                                     total);
  });
  CUDA_CHECK(cudaGetLastError());
}

void sum_arrays(void* out, SumInputs inputs, std::size_t n, bool accumulate, DataType type,
                cudaStream_t stream) {
  if (n == 0) return;
  with_element(type, [&](auto element) {
    using T = typename decltype(element)::type;
    sum_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T*>(out), inputs, n, accumulate);
  });
  CUDA_CHECK(cudaGetLastError());
}

cudaError_t check_kernel_image(int device) {
  cudaError_t status = cudaSetDevice(device);
  if (status != cudaSuccess) return status;
  cudaFuncAttributes attributes{};
  return cudaFuncGetAttributes(&attributes, sum_kernel<float>);
}

}  // namespace runner::cudnn::kernels
