// The GPU side of the runner as the rest of it sees it: librunner_cudnn.so (plugin.h), opened
// on first use. Where it was not built or cannot be loaded, there are no GPUs and `problem`
// says why.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cudnn/gpu_devices.h"

namespace runner {

// The GPUs and library versions, or why there are none; probed once per process.
const cudnn::GpuInventory& gpu_inventory();

// Why the GPU at `index` cannot be used ("" when it can); a GPU must be listed for "".
std::string gpu_problem(int index);

// The cuDNN backend on cuda:`index`; gpu_problem(index) must be "".
std::unique_ptr<Backend> make_gpu_backend(int index);

// The layer types the GPU backend implements; nullopt where its library cannot be loaded.
std::optional<std::vector<std::string>> gpu_layer_kinds();

}  // namespace runner
