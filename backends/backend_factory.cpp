// Chooses a backend from the config's `device`: cpu, cuda[:N] or auto (a GPU when usable).
#include <fmt/format.h>

#include <regex>

#include "backends/backend.h"
#include "backends/onednn/onednn_backend.h"
#include "runner/util/errors.h"

#ifdef RUNNER_WITH_CUDA
#include "backends/cudnn/cudnn_backend.h"
#include "backends/cudnn/gpu_devices.h"
#endif

namespace runner {
namespace {

#ifdef RUNNER_WITH_CUDA
// The GPU `index`, or why it cannot be used ("" and a GPU when it can).
std::string gpu_problem(int index) {
  const auto& gpus = cudnn::gpu_inventory();
  if (gpus.devices.empty()) return gpus.problem;
  for (const auto& d : gpus.devices) {
    if (d.index == index) return cudnn::kernel_problem(d);
  }
  const int count = static_cast<int>(gpus.devices.size());
  return count == 1 ? "this machine has 1 GPU, cuda:0"
                    : fmt::format("this machine has {} GPUs, cuda:0 to cuda:{}", count, count - 1);
}
#endif

}  // namespace

std::unique_ptr<Backend> make_backend(const std::string& device, std::string* note) {
  static const std::regex pattern("auto|cpu|cuda(:[0-9]+)?");
  if (!std::regex_match(device, pattern)) {
    throw UserError(fmt::format("device: found '{}', expected auto, cpu, cuda or cuda:N", device));
  }
  if (device == "cpu") return std::make_unique<onednn::OnednnBackend>();
#ifdef RUNNER_WITH_CUDA
  // "cuda" is cuda:0; an index too long for an int is out of range like any other.
  const std::string digits = device.size() > 5 ? device.substr(5) : "0";
  const int index = device == "auto" ? 0 : digits.size() > 6 ? 1 << 30 : std::stoi(digits);
  const std::string why = gpu_problem(index);
  if (why.empty()) return std::make_unique<cudnn::CudnnBackend>(index);
#else
  const std::string why = "this runner was built without the cuDNN GPU backend";
#endif
  if (device == "auto") {
    if (note) *note = fmt::format("device auto: using the CPU ({})", why);
    return std::make_unique<onednn::OnednnBackend>();
  }
  throw UserError(fmt::format("device: '{}' is not usable: {}", device, why));
}

}  // namespace runner
