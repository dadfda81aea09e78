// Kernels of mixed precision (training.precision bf16 and fp16): the 16-bit mirrors of FP32
// weights and FP32 master gradients of 16-bit ones, the inf/nan check of loss scaling, and the
// per-channel bias of convolutions and linear layers on 16-bit activations with FP32 biases
// (cuDNN's bias calls take one data type for both). FP32 programs launch none of these.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "backends/cudnn/data_type.h"

namespace runner::cudnn::kernels {

// to[i] = from[i] rounded to nearest even, n values of from_type into to_type.
void convert(const void* from, DataType from_type, void* to, DataType to_type, std::size_t n,
             cudaStream_t stream);

// *found = 1 when any of values[0..n) is inf or nan; left as it is otherwise.
void find_non_finite(const float* values, std::size_t n, int* found, cudaStream_t stream);

// y (n, c, hw) += bias (c): y of `type`, added in FP32 and rounded once.
void add_bias_channels(void* y, DataType type, const float* bias, int n, int c, int hw,
                       cudaStream_t stream);

// out[k] = the sum over n and hw of dy (n, c, hw) at channel k, in FP32 (a bias's gradient): one
// block per channel, a fixed order.
void sum_channels(const void* dy, DataType type, int n, int c, int hw, float* out,
                  cudaStream_t stream);

}  // namespace runner::cudnn::kernels
