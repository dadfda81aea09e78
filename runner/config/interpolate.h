// ${env:VAR}, ${env:VAR,default}, ${path.to.key} and ${expr:...} in a config's string values.
#pragma once

#include <nlohmann/json.hpp>

#include "runner/config/source_map.h"

namespace runner {

// Replaces every reference in the string values of `config`, in place:
// - `${env:VAR}` (or Hydra's `${oc.env:VAR}`) by the environment variable, `${env:VAR,default}`
//   by `default` when VAR is unset; an unset VAR without a default is a UserError.
// - `${path.to.key}` by that value of the config (itself resolved first).
// - `${expr:0.1 * training.batch_size / 128}` by the arithmetic's result (runner/config/
//   expression.h), its fields resolved first: the linear-scaling rule for a batch-size sweep.
// A string that is one reference and nothing else takes the value's type (a number, a list, a
// mapping; an environment value is read as a YAML plain scalar, so "4" is the number 4); a
// reference inside longer text must name a string, number or boolean. Unknown fields, cycles
// and malformed references are UserErrors naming the field that holds them (its file:line:col
// from `source_map`).
// The fields under `model.blocks` are left as written: their references name the block's
// parameters (${out}), which only a use of the block gives (block_expansion.h).
void interpolate_config(nlohmann::json& config, const SourceMap& source_map);

inline constexpr const char* kBlocksPath = "model.blocks";

// Resolves the references in `value`, a field at `path` of a block being expanded: a name among
// `params` (${out}, ${expr:out * 4}) is the parameter's value, any other the config's field.
void interpolate_block_field(nlohmann::json& value, const std::string& path,
                             const nlohmann::json& params, nlohmann::json& config,
                             const SourceMap& source_map);

}  // namespace runner
