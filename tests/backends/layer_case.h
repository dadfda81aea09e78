// One per-layer test case (a small graph, its input shape and batch) and the helper that writes
// its layers, shared by the case lists (layer_cases.h, token_layer_cases.h).
#pragma once

#include <string>
#include <vector>

#include "runner/graph/graph.h"

namespace runner::testing {

struct LayerCase {
  std::string name;
  Shape input;
  int batch;
  std::vector<LayerSpec> layers;
};

inline LayerSpec layer(std::string name, std::string type,
                       nlohmann::json attributes = nlohmann::json::object(),
                       std::vector<std::string> inputs = {}) {
  LayerSpec spec;
  spec.name = std::move(name);
  spec.type = std::move(type);
  spec.attributes = std::move(attributes);
  spec.inputs = std::move(inputs);
  spec.where.path = "model.layers[" + spec.name + "]";
  return spec;
}

inline constexpr int kClasses = 5;

}  // namespace runner::testing
