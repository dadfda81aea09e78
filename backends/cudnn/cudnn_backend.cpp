// The cuDNN GPU backend: device facts and compilation.
#include "backends/cudnn/cudnn_backend.h"

#include <fmt/format.h>

#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/cudnn_program.h"
#include "backends/cudnn/gpu_devices.h"
#include "backends/cudnn/gpu_precisions.h"
#include "backends/cudnn/nvml.h"

namespace runner::cudnn {

DeviceInfo CudnnBackend::info() const {
  const GpuInventory& gpus = gpu_inventory();
  DeviceInfo info;
  info.backend = "cudnn";
  info.device = fmt::format("cuda:{}", device_);
  for (const GpuDevice& d : gpus.devices) {
    if (d.index != device_) continue;
    info.name = d.name;
    info.memory_bytes = static_cast<std::int64_t>(d.memory_bytes);
    info.details["memory"] = format_bytes(d.memory_bytes);
    info.details["compute_capability"] = fmt::format("{}.{}", d.major, d.minor);
    info.details["multiprocessors"] = std::to_string(d.multiprocessors);
    info.precisions = gpu_precisions(d.major, d.minor);
  }
  info.details["driver"] = gpus.driver;
  info.details["cuda_runtime"] = gpus.runtime;
  info.details["cudnn_version"] = gpus.cudnn;
  info.details["cublas_version"] = gpus.cublas;
  return info;
}

std::unique_ptr<Program> CudnnBackend::compile(const Graph& graph, const CompileOptions& options) {
  return std::make_unique<CudnnProgram>(device_, graph, options);
}

std::unique_ptr<UtilizationMonitor> CudnnBackend::monitor_utilization() const {
  auto sampler = std::make_unique<NvmlSampler>(device_, std::chrono::milliseconds(100));
  if (!sampler->available()) return nullptr;
  return sampler;
}

}  // namespace runner::cudnn
