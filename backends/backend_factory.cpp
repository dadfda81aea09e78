// Chooses a backend from the config's `device`: cpu, cuda[:N] or auto (a GPU when usable).
#include <fmt/format.h>

#include <regex>

#include "backends/backend.h"
#include "backends/gpu_library.h"
#include "backends/onednn/onednn_backend.h"
#include "runner/util/errors.h"

namespace runner {

std::unique_ptr<Backend> make_backend(const std::string& device, std::string* note) {
  static const std::regex pattern("auto|cpu|cuda(:[0-9]+)?");
  if (!std::regex_match(device, pattern)) {
    throw UserError(fmt::format("device: found '{}', expected auto, cpu, cuda or cuda:N", device));
  }
  if (device == "cpu") return std::make_unique<onednn::OnednnBackend>();
  // "cuda" is cuda:0; an index too long for an int is out of range like any other.
  const std::string digits = device.size() > 5 ? device.substr(5) : "0";
  const int index = device == "auto" ? 0 : digits.size() > 6 ? 1 << 30 : std::stoi(digits);
  const std::string why = gpu_problem(index);
  if (why.empty()) return make_gpu_backend(index);
  if (device == "auto") {
    if (note) *note = fmt::format("device auto: using the CPU ({})", why);
    return std::make_unique<onednn::OnednnBackend>();
  }
  throw UserError(fmt::format("device: '{}' is not usable: {}", device, why));
}

}  // namespace runner
