// Messages for failed CUDA, cuDNN and cuBLAS calls.
#include "backends/cudnn/cuda_check.h"

#include <fmt/format.h>

#include <cstring>
#include <string>

#include "runner/util/errors.h"

namespace runner::cudnn {
namespace {

// The path from the project root ("backends/cudnn/net.cpp"), not the build machine's.
std::string short_path(const char* file) {
  std::string path = file;
  auto at = path.rfind("backends/");
  return at == std::string::npos ? path : path.substr(at);
}

std::string where(const char* statement, const char* file, int line) {
  return fmt::format("in `{}` at {}:{}", statement, short_path(file), line);
}

}  // namespace

std::string format_bytes(std::size_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
  if (b >= 1024.0) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} bytes", bytes);
}

void throw_out_of_memory(std::size_t requested, const char* what) {
  cudaGetLastError();  // an allocation failure is not sticky: clear it so later calls work
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    cudaGetLastError();
    free = total = 0;
  }
  std::string asked = requested ? format_bytes(requested) : std::string("an unknown amount");
  throw OutOfMemoryError(
      fmt::format("GPU out of memory: {} requested for {}, {} free of {} (use a smaller batch "
                  "size or width)",
                  asked, what, format_bytes(free), format_bytes(total)),
      requested, free);
}

void throw_cuda_error(cudaError_t status, const char* statement, const char* file, int line) {
  if (status == cudaErrorMemoryAllocation) {
    throw_out_of_memory(0, fmt::format("`{}` at {}:{}", statement, short_path(file), line).c_str());
  }
  cudaGetLastError();
  std::string hint;
  if (status == cudaErrorIllegalAddress || status == cudaErrorLaunchFailure) {
    hint =
        " (the GPU context is now unusable; --set backend.cuda_graph=false and "
        "compute-sanitizer can "
        "locate the failing kernel)";
  }
  throw LibraryError(fmt::format("CUDA error {} ({}) {}{}", cudaGetErrorName(status),
                                 cudaGetErrorString(status), where(statement, file, line), hint));
}

void throw_cudnn_error(cudnnStatus_t status, const char* statement, const char* file, int line) {
  if (status == CUDNN_STATUS_ALLOC_FAILED) {
    throw_out_of_memory(0, fmt::format("`{}` at {}:{}", statement, short_path(file), line).c_str());
  }
  char detail[512] = {0};
  cudnnGetLastErrorString(detail, sizeof(detail));
  std::string message =
      fmt::format("cuDNN error {} {}", cudnnGetErrorString(status), where(statement, file, line));
  if (std::strlen(detail) > 0) message += fmt::format(": {}", detail);
  throw LibraryError(message);
}

void throw_cublas_error(cublasStatus_t status, const char* statement, const char* file, int line) {
  if (status == CUBLAS_STATUS_ALLOC_FAILED) {
    throw_out_of_memory(0, fmt::format("`{}` at {}:{}", statement, short_path(file), line).c_str());
  }
  throw LibraryError(fmt::format("cuBLAS error {} ({}) {}", cublasGetStatusName(status),
                                 cublasGetStatusString(status), where(statement, file, line)));
}

}  // namespace runner::cudnn
