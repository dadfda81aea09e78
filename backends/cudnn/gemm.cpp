// cuBLAS products (gemm.h).
#include "backends/cudnn/gemm.h"

#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/descriptors.h"

namespace runner::cudnn {

cudaDataType_t cuda_type(DataType type) {
  switch (type) {
    case DataType::bf16:
      return CUDA_R_16BF;
    case DataType::f16:
      return CUDA_R_16F;
    case DataType::f32:
      break;
  }
  return CUDA_R_32F;
}

void gemm(cublasHandle_t handle, cublasOperation_t op_a, cublasOperation_t op_b, int m, int n,
          int k, const void* a, int lda, const void* b, int ldb, DataType in_type, void* c, int ldc,
          DataType out_type) {
  if (in_type == DataType::f32) {
    CUBLAS_CHECK(cublasSgemm(handle, op_a, op_b, m, n, k, &kOne, static_cast<const float*>(a), lda,
                             static_cast<const float*>(b), ldb, &kZero, static_cast<float*>(c),
                             ldc));
    return;
  }
  CUBLAS_CHECK(cublasGemmEx(handle, op_a, op_b, m, n, k, &kOne, a, cuda_type(in_type), lda, b,
                            cuda_type(in_type), ldb, &kZero, c, cuda_type(out_type), ldc,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void row_major_gemm_batched(cublasHandle_t handle, int m, int n, int k, float alpha,
                            const RowMatrices& a, const RowMatrices& b, void* c, int ldc,
                            long long stride_c, int count, DataType type) {
  const cublasOperation_t op_a = a.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = b.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (type == DataType::f32) {
    CUBLAS_CHECK(cublasSgemmStridedBatched(handle, op_b, op_a, n, m, k, &alpha,
                                           static_cast<const float*>(b.data), b.ld, b.stride,
                                           static_cast<const float*>(a.data), a.ld, a.stride,
                                           &kZero, static_cast<float*>(c), ldc, stride_c, count));
    return;
  }
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, op_b, op_a, n, m, k, &alpha, b.data,
                                          cuda_type(type), b.ld, b.stride, a.data, cuda_type(type),
                                          a.ld, a.stride, &kZero, c, cuda_type(type), ldc, stride_c,
                                          count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace runner::cudnn
