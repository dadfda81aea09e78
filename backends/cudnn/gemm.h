// cuBLAS matrix products in the activations' type: FP32 data through cublasSgemm (TF32 products
// where the handle's math mode allows them: training.precision tf32), 16-bit data through the Ex
// calls accumulating in FP32. Shared by linear's and self_attention's layers.
#pragma once

#include <cublas_v2.h>

#include "backends/cudnn/data_type.h"

namespace runner::cudnn {

// cuBLAS's name of `type`.
cudaDataType_t cuda_type(DataType type);

// C (m, n) = op(A) op(B) in cuBLAS's column-major terms; A and B hold `in_type` elements, C
// `out_type` ones.
void gemm(cublasHandle_t handle, cublasOperation_t op_a, cublasOperation_t op_b, int m, int n,
          int k, const void* a, int lda, const void* b, int ldb, DataType in_type, void* c, int ldc,
          DataType out_type);

// One operand of a row-major batched product: matrix b of the batch starts at data + b * stride
// (in elements), its rows `ld` elements apart, read transposed where `transpose`.
struct RowMatrices {
  const void* data;
  int ld;
  long long stride;
  bool transpose = false;
};

// For each of `count` batches: C (m, n) = alpha op(A) op(B), all row-major of `type` elements,
// accumulated in FP32 (cuBLAS's column-major C^T = op(B)^T op(A)^T).
void row_major_gemm_batched(cublasHandle_t handle, int m, int n, int k, float alpha,
                            const RowMatrices& a, const RowMatrices& b, void* c, int ldc,
                            long long stride_c, int count, DataType type);

}  // namespace runner::cudnn
