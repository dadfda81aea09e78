// Chooses a backend from the config's `device`: cpu, cuda[:N] or auto (a GPU when usable).
#include <regex>

#include <fmt/format.h>

#include "backends/backend.h"
#include "backends/onednn/onednn_backend.h"
#include "runner/util/errors.h"

namespace runner {

std::unique_ptr<Backend> make_backend(const std::string& device, std::string* note) {
  static const std::regex pattern("auto|cpu|cuda(:[0-9]+)?");
  if (!std::regex_match(device, pattern)) {
    throw UserError(fmt::format("device: found '{}', expected auto, cpu, cuda or cuda:N", device));
  }
  if (device == "cpu") return std::make_unique<onednn::OnednnBackend>();
  // The cuDNN backend is not built into this runner yet.
  const std::string why = "this runner was built without the cuDNN GPU backend";
  if (device == "auto") {
    if (note) *note = fmt::format("device auto: using the CPU ({})", why);
    return std::make_unique<onednn::OnednnBackend>();
  }
  throw UserError(fmt::format("device: '{}' is not usable: {}", device, why));
}

}  // namespace runner
