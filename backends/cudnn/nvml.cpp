// The few NVML calls the runner makes, resolved with dlsym from libnvidia-ml.so.1.
#include "backends/cudnn/nvml.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <condition_variable>
#include <type_traits>

namespace runner::cudnn {
namespace {

// NVML's C types, as declared in nvml.h (not needed at build time).
using NvmlReturn = int;  // 0: NVML_SUCCESS
using NvmlDevice = void*;
struct NvmlUtilization {
  unsigned int gpu, memory;
};
struct NvmlMemory {
  unsigned long long total, free, used;
};
constexpr int kNvmlClockSm = 1;

struct Nvml {
  bool loaded = false;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*driver_version)(char*, unsigned int) = nullptr;
  NvmlReturn (*by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*power)(NvmlDevice, unsigned int*) = nullptr;
};

// Loaded and initialised once per process; never unloaded (other threads may still sample).
const Nvml& nvml() {
  static const Nvml instance = [] {
    Nvml n;
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return n;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      return fn != nullptr;
    };
    bool ok = sym(n.init, "nvmlInit_v2") && sym(n.driver_version, "nvmlSystemGetDriverVersion") &&
              sym(n.by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2") &&
              sym(n.utilization, "nvmlDeviceGetUtilizationRates") &&
              sym(n.memory, "nvmlDeviceGetMemoryInfo") && sym(n.clock, "nvmlDeviceGetClockInfo") &&
              sym(n.power, "nvmlDeviceGetPowerUsage");
    n.loaded = ok && n.init() == 0;
    return n;
  }();
  return instance;
}

}  // namespace

std::string nvml_driver_version() {
  const Nvml& n = nvml();
  if (!n.loaded) return "";
  char version[96] = {0};
  if (n.driver_version(version, sizeof(version)) != 0) return "";
  return version;
}

struct NvmlSampler::Sums {
  DeviceUtilization u;
  double gpu = 0, clock = 0, power = 0;
  std::condition_variable wake;
};

NvmlSampler::NvmlSampler(int cuda_device, std::chrono::milliseconds period)
    : sums_(std::make_unique<Sums>()) {
  const Nvml& n = nvml();
  if (!n.loaded) return;
  char bus_id[32] = {0};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), cuda_device) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  NvmlDevice device = nullptr;
  if (n.by_pci_bus_id(bus_id, &device) != 0) return;
  device_ = device;
  thread_ = std::thread([this, period] { loop(period); });
}

NvmlSampler::~NvmlSampler() {
  stop();
}

void NvmlSampler::loop(std::chrono::milliseconds period) {
  const Nvml& n = nvml();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    NvmlUtilization rates{};
    NvmlMemory memory{};
    unsigned int clock = 0, milliwatts = 0;
    if (n.utilization(device_, &rates) == 0) {
      DeviceUtilization& u = sums_->u;
      ++u.samples;
      sums_->gpu += rates.gpu;
      u.peak_gpu_percent = std::max(u.peak_gpu_percent, static_cast<double>(rates.gpu));
      if (n.memory(device_, &memory) == 0) {
        u.peak_memory_used_bytes =
            std::max(u.peak_memory_used_bytes, static_cast<double>(memory.used));
      }
      if (n.clock(device_, kNvmlClockSm, &clock) == 0) sums_->clock += clock;
      if (n.power(device_, &milliwatts) == 0) {
        sums_->power += milliwatts / 1000.0;
        u.peak_power_watts = std::max(u.peak_power_watts, milliwatts / 1000.0);
      }
    }
    sums_->wake.wait_for(lock, period, [this] { return stopping_.load(); });
  }
}

DeviceUtilization NvmlSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  sums_->wake.notify_all();
  if (thread_.joinable()) thread_.join();
  DeviceUtilization u = sums_->u;
  u.available = device_ != nullptr;
  if (u.samples > 0) {
    u.mean_gpu_percent = sums_->gpu / u.samples;
    u.mean_sm_clock_mhz = sums_->clock / u.samples;
    u.mean_power_watts = sums_->power / u.samples;
  }
  return u;
}

}  // namespace runner::cudnn
