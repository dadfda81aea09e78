// An Experiment written back as config JSON, every default spelled out (Experiment::resolved).
#pragma once

#include <nlohmann/json.hpp>

#include "runner/config/experiment.h"

namespace runner {

// The experiment as a config that would reproduce it: it validates against the schema.
nlohmann::json experiment_to_json(const Experiment& experiment);
// The model's plain layers (blocks expanded) as a `model.layers` list.
nlohmann::json plain_layers_json(const ModelSpec& model);

}  // namespace runner
