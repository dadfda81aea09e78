// Whether a backend implements every layer of a graph, asked at `runner validate` (before any
// data is loaded) so that a kind one backend lacks is a clear error, not a failure mid-compile.
#pragma once

#include <string>
#include <vector>

#include "runner/config/device.h"
#include "runner/graph/graph.h"

namespace runner {

// A UserError naming the first layer whose type is not in `kinds`, the backend and its kinds.
void check_layer_support(const Graph& graph, const std::vector<std::string>& kinds,
                         const std::string& backend);

// For a config's device: the CPU backend's kinds for cpu and auto (auto falls back to it), the
// GPU backend's for cuda and cuda:N (when its library loads; otherwise the run says why).
void check_layer_support(const Graph& graph, const Device& device);

// For a backend already chosen ("onednn" or "cudnn", DeviceInfo::backend).
void check_backend_layer_support(const Graph& graph, const std::string& backend);

}  // namespace runner
