// Command-line overrides (--set PATH=VALUE), applied to the config's JSON before validation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runner/config/source_map.h"

namespace runner {

// Applies one override "training.batch_size=64" or "model.layers[0].kernel=[3,3]". VALUE is read
// as YAML (a scalar or a flow value); an empty VALUE is the empty string. Missing object keys are
// created; a path through a non-object or past the end of a list is a UserError naming the
// override. The source map records the path (and all below it) as set by "--set <override>".
// A VALUE that is a mapping replaces the whole mapping there (`training.optimizer={type: adam,
// lr: 0.001}` leaves no `momentum` behind); a `!replace` tag before it is accepted and changes
// nothing. "~PATH" deletes the field (a key or a list item); a missing one is a UserError;
// "~PATH=VALUE" deletes it only when it holds VALUE. Hydra's "+PATH=VALUE" and "++PATH=VALUE"
// are read as "PATH=VALUE". `origin` names where the override was written in messages (a sweep
// axis's value: "--grid name=3", "sweep.yaml:5:9: sweep.grid.name[1]"); empty: "--set <override>".
void apply_override(nlohmann::json& config, SourceMap& source_map, const std::string& override_text,
                    const std::string& origin = "");

}  // namespace runner
