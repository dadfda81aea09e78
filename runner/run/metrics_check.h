// What the config's `metrics` list cannot tell on this model, said before training: a top_k
// whose K is at least the model's classes is 100 % whatever the weights (scikit-learn warns
// alike).
#pragma once

#include <string>
#include <vector>

#include "runner/config/experiment.h"
#include "runner/graph/graph.h"

namespace runner {

std::vector<std::string> metrics_warnings(const Experiment& experiment, const Graph& graph);

}  // namespace runner
