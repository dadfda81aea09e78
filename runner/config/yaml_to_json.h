// YAML text to JSON, typing plain scalars as the YAML 1.2 core schema does, with a source map.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runner/config/source_map.h"

namespace runner {

// Parses YAML `text` read from `file` (a name for messages). Records every field's line and
// column in `source_map` under its path. Malformed YAML and duplicate keys are UserErrors.
nlohmann::json yaml_to_json(const std::string& text, const std::string& file,
                            SourceMap& source_map);

// One plain (unquoted) scalar as the YAML 1.2 core schema types it: null, bool, int, float, else
// the string itself.
nlohmann::json plain_scalar_to_json(const std::string& text);

}  // namespace runner
