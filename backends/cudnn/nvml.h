// GPU utilisation through NVML, opened with dlopen at run time (libnvidia-ml.so.1 ships with
// the driver; no build dependency). Without it nothing is sampled and nothing fails.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace runner::cudnn {

// The driver's release, e.g. "580.159.04"; "" when NVML is absent.
std::string nvml_driver_version();

// Mean and peak of what a background thread sampled while training ran.
struct GpuUtilization {
  bool available = false;  // false: NVML absent or the GPU not found in it; nothing recorded
  int samples = 0;
  double mean_gpu_percent = 0, peak_gpu_percent = 0;
  double peak_memory_used_bytes = 0;
  double mean_sm_clock_mhz = 0;
  double mean_power_watts = 0, peak_power_watts = 0;
};

// Samples the GPU with this CUDA device index (matched to NVML by PCI bus id, so
// CUDA_VISIBLE_DEVICES is respected) every `period` until stop() or destruction.
class NvmlSampler {
 public:
  NvmlSampler(int cuda_device, std::chrono::milliseconds period);
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  bool available() const { return device_ != nullptr; }
  GpuUtilization stop();

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
