// Chooses a backend from the config's `device`: cpu, cuda[:N] or auto (a GPU when usable).
#include <fmt/format.h>

#include "backends/backend.h"
#include "backends/gpu_library.h"
#include "backends/onednn/onednn_backend.h"
#include "runner/util/errors.h"

namespace runner {

std::unique_ptr<Backend> make_backend(const Device& device, std::string* note) {
  if (device.is_cpu()) return std::make_unique<onednn::OnednnBackend>();
  const int index = device.gpu_index();
  const std::string why = gpu_problem(index);
  if (why.empty()) return make_gpu_backend(index);
  if (device.is_auto()) {
    if (note) *note = fmt::format("device auto: using the CPU ({})", why);
    return std::make_unique<onednn::OnednnBackend>();
  }
  throw UserError(fmt::format("device: '{}' is not usable: {}", device.name(), why));
}

}  // namespace runner
