// The per-layer table that `runner describe` and `runner run` print.
#pragma once

#include <string>

#include "runner/graph/graph.h"

namespace runner {

// One row per layer (name, type, inputs, output shape, parameters, FLOPs per image) and totals.
std::string layer_table(const Graph& graph);

// "1.23 M" style counts for tables.
std::string human_count(double value);

}  // namespace runner
