// The per-layer table that `runner describe` and `runner run` print.
#pragma once

#include <string>

#include "runner/config/model_spec.h"
#include "runner/graph/graph.h"

namespace runner {

// One row per layer (name, type, inputs, output shape, parameters, FLOPs per image) and totals.
// When the model uses blocks and `flat` is false, the layers of each top-level block use are
// grouped under a line naming the block, its repeat and the group's totals ("layer2:
// basic_block x2"), their rows indented.
std::string layer_table(const Graph& graph, const ModelSpec& model, bool flat = false);

// "1.23 M" style counts for tables.
std::string human_count(double value);

}  // namespace runner
