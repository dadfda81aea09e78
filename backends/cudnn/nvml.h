// GPU utilisation through NVML, opened with dlopen at run time (libnvidia-ml.so.1 ships with
// the driver; no build dependency). Without it nothing is sampled and nothing fails.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "backends/backend.h"

namespace runner::cudnn {

// The driver's release, e.g. "580.159.04"; "" when NVML is absent.
std::string nvml_driver_version();

// Samples the GPU with this CUDA device index (matched to NVML by PCI bus id, so
// CUDA_VISIBLE_DEVICES is respected) every `period` until stop() or destruction.
class NvmlSampler : public UtilizationMonitor {
 public:
  NvmlSampler(int cuda_device, std::chrono::milliseconds period);
  ~NvmlSampler() override;
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  bool available() const { return device_ != nullptr; }
  // available is false when NVML is absent or the GPU is not found in it.
  DeviceUtilization stop() override;

 private:
  struct Sums;
  void loop(std::chrono::milliseconds period);
  void* device_ = nullptr;  // nvmlDevice_t
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::unique_ptr<Sums> sums_;
  std::thread thread_;
};

}  // namespace runner::cudnn
