// Opens librunner_cudnn.so once, from $RUNNER_GPU_LIBRARY (a full path), else next to the
// executable or in the build folder it was built in, and turns every way that can fail into a
// reason.
#include "backends/gpu_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "backends/cudnn/plugin.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

struct LoadedPlugin {
  const cudnn::GpuPlugin* plugin = nullptr;
  std::string problem;  // why `plugin` is null
};

// Where the library may be: next to the executable, then the build folder it was built in.
std::vector<fs::path> plugin_candidates() {
  std::vector<fs::path> paths;
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error) paths.push_back(executable.parent_path() / cudnn::kGpuPluginFile);
#ifdef RUNNER_GPU_LIBRARY_DIR
  paths.push_back(fs::path(RUNNER_GPU_LIBRARY_DIR) / cudnn::kGpuPluginFile);
#endif
  return paths;
}

LoadedPlugin open_plugin(const fs::path& path) {
  // Never closed: backends and programs made by it live until the process ends.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    return {nullptr,
            fmt::format("the GPU backend {} could not be loaded: {}", path.string(), dlerror())};
  }
  auto entry = reinterpret_cast<cudnn::GpuPluginEntry>(dlsym(library, cudnn::kGpuPluginEntry));
  const cudnn::GpuPlugin* plugin = entry ? entry() : nullptr;
  if (!plugin || plugin->abi != cudnn::kGpuPluginAbi) {
    return {nullptr, fmt::format("the GPU backend {} is not the one this runner was built with "
                                 "(rebuild both)",
                                 path.string())};
  }
  return {plugin, ""};
}

LoadedPlugin find_plugin() {
#ifndef RUNNER_WITH_CUDA  // the rest stays compiled, so that both builds check it
  return {nullptr, "this runner was built without the cuDNN GPU backend"};
#endif
  if (const char* chosen = std::getenv("RUNNER_GPU_LIBRARY"); chosen && *chosen) {
    if (fs::exists(chosen)) return open_plugin(chosen);
    return {nullptr, fmt::format("RUNNER_GPU_LIBRARY is {}, which does not exist", chosen)};
  }
  const std::vector<fs::path> paths = plugin_candidates();
  std::vector<std::string> searched;
  for (const fs::path& path : paths) {
    if (fs::exists(path)) return open_plugin(path);
    searched.push_back(path.parent_path().string());
  }
  return {nullptr, fmt::format("the GPU backend {} was not found in {}", cudnn::kGpuPluginFile,
                               fmt::join(searched, " or "))};
}

const LoadedPlugin& loaded_plugin() {
  static const LoadedPlugin loaded = find_plugin();
  return loaded;
}

}  // namespace

const cudnn::GpuInventory& gpu_inventory() {
  const LoadedPlugin& loaded = loaded_plugin();
  if (loaded.plugin) return loaded.plugin->inventory();
  static const cudnn::GpuInventory none{{}, loaded.problem, "", "", "", ""};
  return none;
}

std::string gpu_problem(int index) {
  const cudnn::GpuInventory& gpus = gpu_inventory();
  if (gpus.devices.empty()) return gpus.problem;
  for (const cudnn::GpuDevice& device : gpus.devices) {
    if (device.index == index) return loaded_plugin().plugin->kernel_problem(device);
  }
  const int count = static_cast<int>(gpus.devices.size());
  return count == 1 ? "this machine has 1 GPU, cuda:0"
                    : fmt::format("this machine has {} GPUs, cuda:0 to cuda:{}", count, count - 1);
}

std::unique_ptr<Backend> make_gpu_backend(int index) {
  return loaded_plugin().plugin->make_backend(index);
}

std::optional<std::vector<std::string>> gpu_layer_kinds() {
  const LoadedPlugin& loaded = loaded_plugin();
  if (!loaded.plugin) return std::nullopt;
  return loaded.plugin->layer_kinds();
}

}  // namespace runner
