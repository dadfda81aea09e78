// Finding and reading the JSON Schemas under schemas/ ($RUNNER_SCHEMA_DIR overrides the folder).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace runner {

// $RUNNER_SCHEMA_DIR when set and non-empty, else the source tree's schemas/ folder.
std::filesystem::path schema_directory();

// The parsed schema file `name` (e.g. "experiment.schema.json"), keys in file order. A missing or
// unparsable file is a UserError naming it.
nlohmann::ordered_json load_schema(const std::string& name);

}  // namespace runner
