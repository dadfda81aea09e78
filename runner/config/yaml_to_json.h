// YAML text to JSON, typing plain scalars as the YAML 1.2 core schema does, with a source map.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runner/config/source_map.h"

namespace runner {

// Parses YAML `text` read from `file` (a name for messages). Records every field's line and
// column in `source_map` under its path. Malformed YAML, duplicate keys, invalid UTF-8,
// non-finite numbers and documents beyond runner/config/config_limits.h are UserErrors.
// `root_path` names where a value given on the command line goes ("training.lr"): its messages
// then name that field, without line and column.
nlohmann::json yaml_to_json(const std::string& text, const std::string& file, SourceMap& source_map,
                            const std::string& root_path = "");

// One plain (unquoted) scalar as the YAML 1.2 core schema types it: null, bool, int, float, else
// the string itself.
nlohmann::json plain_scalar_to_json(const std::string& text);

}  // namespace runner
