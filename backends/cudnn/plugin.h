// The cuDNN backend is built as its own shared library, librunner_cudnn.so, that the runner
// opens only when a GPU is asked for or listed: cuBLAS and cuDNN cost a process about 150 MB of
// resident memory as soon as they are loaded, which a CPU run should not pay. This is the one
// symbol the library exports and the table it returns. Free of CUDA types.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cudnn/gpu_devices.h"

namespace runner::cudnn {

// Raised whenever GpuPlugin or the types it passes change, so that a stale library is refused
// (6: CompileOptions::precision, DeviceInfo::precisions, ProgramFacts' loss scaling).
constexpr int kGpuPluginAbi = 6;
constexpr const char* kGpuPluginFile = "librunner_cudnn.so";
constexpr const char* kGpuPluginEntry = "runner_cudnn_plugin";

struct GpuPlugin {
  int abi = kGpuPluginAbi;
  const GpuInventory& (*inventory)() = nullptr;
  std::string (*kernel_problem)(const GpuDevice& device) = nullptr;
  std::unique_ptr<Backend> (*make_backend)(int device) = nullptr;
  std::vector<std::string> (*layer_kinds)() = nullptr;  // the layer types it implements
};

using GpuPluginEntry = const GpuPlugin* (*)();

}  // namespace runner::cudnn
