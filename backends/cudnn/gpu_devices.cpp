// Probing the CUDA driver and GPUs; every failure becomes a reason, never an exception.
#include "backends/cudnn/gpu_devices.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <fmt/format.h>

#include <cstdlib>

#include "backends/cudnn/kernels.h"
#include "backends/cudnn/nvml.h"

namespace runner::cudnn {
namespace {

std::string cuda_version(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

std::string library_versions(GpuInventory& inventory) {
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) cudaGetLastError();
  inventory.runtime = cuda_version(runtime);
  const std::size_t v = cudnnGetVersion();  // major * 10000 + minor * 100 + patch (cuDNN 9)
  inventory.cudnn = fmt::format("{}.{}.{}", v / 10000, (v % 10000) / 100, v % 100);
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  inventory.cublas = fmt::format("{}.{}.{}", major, minor, patch);
  return inventory.runtime;
}

// Why cudaGetDeviceCount failed, in words a user can act on.
std::string why_no_gpu(cudaError_t status, int driver, const std::string& runtime) {
  if (driver == 0) {
    return "no NVIDIA driver was found: libcuda.so.1 is not installed on this machine";
  }
  if (status == cudaErrorInsufficientDriver) {
    return fmt::format(
        "the NVIDIA driver supports CUDA {}, but this runner was built with CUDA {} "
        "(update the driver, or build with an older CUDA toolkit)",
        cuda_version(driver), runtime);
  }
  if (status == cudaErrorNoDevice) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    return visible ? fmt::format("no CUDA GPU is visible (CUDA_VISIBLE_DEVICES={})", visible)
                   : std::string("the NVIDIA driver found no CUDA GPU");
  }
  return fmt::format("CUDA cannot use a GPU: {} ({})", cudaGetErrorName(status),
                     cudaGetErrorString(status));
}

GpuInventory probe() {
  GpuInventory inventory;
  const std::string runtime = library_versions(inventory);
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) {
    cudaGetLastError();
    driver = 0;
  }
  const std::string release = nvml_driver_version();
  inventory.driver = driver == 0 ? "none" : cuda_version(driver);
  if (!release.empty()) inventory.driver += " (" + release + ")";

  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count <= 0) {
    cudaGetLastError();
    inventory.problem =
        why_no_gpu(status == cudaSuccess ? cudaErrorNoDevice : status, driver, runtime);
    return inventory;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    GpuDevice d;
    d.index = i;
    d.name = prop.name;
    d.memory_bytes = prop.totalGlobalMem;
    d.major = prop.major;
    d.minor = prop.minor;
    d.multiprocessors = prop.multiProcessorCount;
    inventory.devices.push_back(d);
  }
  if (inventory.devices.empty()) inventory.problem = "no GPU answered cudaGetDeviceProperties";
  return inventory;
}

// cuDNN's and cuBLAS's handles and one convolution algorithm query: a cuDNN whose
// sub-libraries (libcudnn_cnn, ...) do not load fails here, not when a model compiles.
std::string library_problem(const GpuDevice& device) {
  if (cudaSetDevice(device.index) != cudaSuccess) cudaGetLastError();
  auto fails = [&](const std::string& library, const std::string& step, const char* why) {
    return fmt::format(
        "{} cannot start on {}: {} failed: {} (check the installation of {} and "
        "LD_LIBRARY_PATH)",
        library, device.name, step, why, library);
  };
  cudnnHandle_t cudnn = nullptr;
  if (cudnnStatus_t st = cudnnCreate(&cudnn); st != CUDNN_STATUS_SUCCESS) {
    return fails("cuDNN", "cudnnCreate", cudnnGetErrorString(st));
  }
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnStatus_t st = cudnnCreateTensorDescriptor(&x);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnCreateTensorDescriptor(&y);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnCreateFilterDescriptor(&w);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnCreateConvolutionDescriptor(&conv);
  if (st == CUDNN_STATUS_SUCCESS) {
    st = cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 8, 8);
  }
  if (st == CUDNN_STATUS_SUCCESS) {
    st = cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 8, 8);
  }
  if (st == CUDNN_STATUS_SUCCESS) {
    st = cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 3, 3);
  }
  if (st == CUDNN_STATUS_SUCCESS) {
    st = cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                         CUDNN_DATA_FLOAT);
  }
  if (st == CUDNN_STATUS_SUCCESS) {
    int returned = 0;
    cudnnConvolutionFwdAlgoPerf_t perf{};
    st = cudnnGetConvolutionForwardAlgorithm_v7(cudnn, x, w, conv, y, 1, &returned, &perf);
  }
  if (conv) cudnnDestroyConvolutionDescriptor(conv);
  if (w) cudnnDestroyFilterDescriptor(w);
  if (y) cudnnDestroyTensorDescriptor(y);
  if (x) cudnnDestroyTensorDescriptor(x);
  cudnnDestroy(cudnn);
  if (st != CUDNN_STATUS_SUCCESS) {
    return fails("cuDNN", "a convolution algorithm query", cudnnGetErrorString(st));
  }
  cublasHandle_t cublas = nullptr;
  if (cublasStatus_t bst = cublasCreate(&cublas); bst != CUBLAS_STATUS_SUCCESS) {
    return fails("cuBLAS", "cublasCreate", cublasGetStatusString(bst));
  }
  cublasDestroy(cublas);
  return "";
}

}  // namespace

const GpuInventory& gpu_inventory() {
  static const GpuInventory inventory = probe();
  return inventory;
}

std::string kernel_problem(const GpuDevice& device) {
  cudaError_t status = kernels::check_kernel_image(device.index);
  if (status == cudaSuccess) return library_problem(device);
  cudaGetLastError();
  return fmt::format(
      "{} (compute capability {}.{}) cannot run this runner's kernels, built for "
      "CUDA architectures {}: {} (rebuild with -DCMAKE_CUDA_ARCHITECTURES={}{})",
      device.name, device.major, device.minor, RUNNER_CUDA_ARCHITECTURES,
      cudaGetErrorString(status), device.major, device.minor);
}

}  // namespace runner::cudnn
