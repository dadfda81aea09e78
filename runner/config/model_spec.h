// The model as the config writes it: its layers (kind-specific fields as JSON, read by each
// layer kind's shape rule) and how weights start. Plain data, before the graph is built.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runner/util/enum_names.h"
#include "runner/util/errors.h"

namespace runner {

// One layer as written in the config; `attributes` holds the kind-specific fields.
struct LayerSpec {
  std::string name;
  std::string type;
  std::vector<std::string> inputs;  // empty: the previous layer (or the data for the first)
  nlohmann::json attributes;        // e.g. {"out_channels": 6, "kernel": 5}
  SourceLocation where;             // file, path (model.layers[3]) and line, for errors
};

// How conv2d and linear weights start: PyTorch's default (uniform in +-1/sqrt(fan_in)) or
// N(0, 2/fan_out), torchvision's ResNets' choice. Biases always start as PyTorch's.
enum class WeightInit { pytorch_default, kaiming_normal };

// The config's names of the weight initialisations (model.init, a layer's init).
inline constexpr EnumNames<WeightInit, 2> kWeightInitNames = {
    {{WeightInit::pytorch_default, "default"}, {WeightInit::kaiming_normal, "kaiming_normal"}}};

inline std::string_view weight_init_name(WeightInit init) {
  return name_in(kWeightInitNames, init);
}

// The initialisation a config names; nullopt for a name that is none of them.
inline std::optional<WeightInit> weight_init_named(std::string_view name) {
  return value_named(kWeightInitNames, name);
}

struct ModelSpec {
  double width = 1.0;  // multiplies channels/features of every layer but the classifier
  WeightInit init = WeightInit::pytorch_default;  // for weights whose layer names no init
  std::vector<LayerSpec> layers;  // plain layers: blocks expanded (block_expansion.h)
  // The model as written when it uses blocks (model.blocks, and model.layers with the entries
  // that use them); null otherwise. The resolved config keeps this form, so its hash and a
  // report's config say what the user wrote.
  nlohmann::json written_blocks, written_layers;
  bool uses_blocks() const { return !written_layers.is_null(); }
};

}  // namespace runner
