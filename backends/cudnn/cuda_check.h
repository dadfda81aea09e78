// Status checks for CUDA, cuDNN and cuBLAS calls: a failure throws LibraryError with the
// statement, file:line and the library's message; an allocation failure throws OutOfMemoryError.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <string>

#define CUDA_CHECK(statement) \
  ::runner::cudnn::check_cuda((statement), #statement, __FILE__, __LINE__)
#define CUDNN_CHECK(statement) \
  ::runner::cudnn::check_cudnn((statement), #statement, __FILE__, __LINE__)
#define CUBLAS_CHECK(statement) \
  ::runner::cudnn::check_cublas((statement), #statement, __FILE__, __LINE__)

namespace runner::cudnn {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* statement, const char* file,
                                   int line);
[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* statement, const char* file,
                                    int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* statement, const char* file,
                                     int line);
// An OutOfMemoryError for `requested` bytes (0 when the library did not say), with the device's
// free memory, naming what the memory was for.
[[noreturn]] void throw_out_of_memory(std::size_t requested, const char* what);

inline void check_cuda(cudaError_t status, const char* statement, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, statement, file, line);
}
inline void check_cudnn(cudnnStatus_t status, const char* statement, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) throw_cudnn_error(status, statement, file, line);
}
inline void check_cublas(cublasStatus_t status, const char* statement, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw_cublas_error(status, statement, file, line);
}

// "1.50 GiB" style sizes for messages.
std::string format_bytes(std::size_t bytes);

}  // namespace runner::cudnn
