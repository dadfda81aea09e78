// The cuDNN GPU backend for one device (cuda:N). Free of CUDA types: the factory and the CLI
// include it.
#pragma once

#include "backends/backend.h"

namespace runner::cudnn {

class CudnnBackend : public Backend {
 public:
  // `device` must be a valid index of gpu_inventory(); make_backend checks it.
  explicit CudnnBackend(int device) : device_(device) {}
  DeviceInfo info() const override;
  std::unique_ptr<Program> compile(const Graph& graph, const CompileOptions& options) override;
  // NVML sampled every 100 ms; nullptr without NVML.
  std::unique_ptr<UtilizationMonitor> monitor_utilization() const override;

 private:
  int device_;
};

}  // namespace runner::cudnn
