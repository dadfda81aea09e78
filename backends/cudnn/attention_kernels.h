// CUDA kernels of self_attention beside cuBLAS's products: the softmax of each row of the
// attention scores and its backward pass, in place, of `type` elements computed in FP32.
#pragma once

#include <cuda_runtime.h>

#include "backends/cudnn/data_type.h"

namespace runner::cudnn::kernels {

// x = softmax(x) along each of `rows` rows of `cols` values, in place.
void softmax_rows(void* x, int rows, int cols, DataType type, cudaStream_t stream);

// dx = y * (dx - sum_j(dx_j * y_j)) along each row, in place in dx: the softmax's backward pass
// from its output y.
void softmax_rows_backward(const void* y, void* dx, int rows, int cols, DataType type,
                           cudaStream_t stream);

}  // namespace runner::cudnn::kernels
