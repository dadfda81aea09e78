// Layer support per backend: the oneDNN list is linked in, the cuDNN list comes from its library.
#include "backends/layer_support.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/gpu_library.h"
#include "backends/onednn/build_context.h"

namespace runner {

void check_layer_support(const Graph& graph, const std::vector<std::string>& kinds,
                         const std::string& backend) {
  for (const Node& node : graph.nodes) {
    if (std::find(kinds.begin(), kinds.end(), node.type) != kinds.end()) continue;
    SourceLocation at = node.where;
    at.path += ".type";
    throw_user_error(at,
                     fmt::format("layer '{}' ({}) is not implemented by the {} backend", node.name,
                                 node.type, backend),
                     fmt::format("it has: {}; choose another device", fmt::join(kinds, ", ")));
  }
}

void check_backend_layer_support(const Graph& graph, const std::string& backend) {
  if (backend == "cudnn") {
    if (auto kinds = gpu_layer_kinds()) check_layer_support(graph, *kinds, "cuDNN");
    return;
  }
  check_layer_support(graph, onednn::layer_factories().kinds(), "oneDNN");
}

void check_layer_support(const Graph& graph, const Device& device) {
  check_backend_layer_support(graph, device.is_cuda() ? "cudnn" : "onednn");
}

}  // namespace runner
