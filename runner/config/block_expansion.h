// Blocks in the model: `model.blocks` defines named blocks of layers with parameters; an entry
// {name, block, repeat, with, first, rest, inputs, enabled} of model.layers (or of another block)
// uses one. Expansion turns the config as written into plain layers before the graph is built.
#pragma once

#include <nlohmann/json.hpp>

#include "runner/config/load_config.h"

namespace runner {

// Whether the config (as written) defines blocks or uses one.
bool uses_blocks(const nlohmann::json& config);

// The document with model.layers expanded and model.blocks gone: every use of a block replaced by
// its instances' layers, named as PyTorch names nested modules (stage2.0.conv1 for the first of a
// repeat, stage2.conv1 for a single use), the parameters put in their ${...} references, entries
// with `enabled: false` left out (a reference to one names its input), and every input written
// out where the previous layer is not it. The expansion is validated against the schema; its
// source map puts each expanded field at the block line it came from, and messages name that
// field with the expanded layer: "model.blocks.basic.layers[0].out_channels (layer
// stage2.0.conv1, from model.layers[4])". Expects a validated document; a document without blocks
// comes back as it is. Misused blocks (unknown block or parameter, a parameter without a value, a
// block that uses itself, more than 4096 layers) are UserErrors naming the field.
ConfigDocument expand_blocks(const ConfigDocument& written);

}  // namespace runner
