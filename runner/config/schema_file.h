// Finding and reading the JSON Schemas under schemas/ ($RUNNER_SCHEMA_DIR overrides the folder).
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "runner/config/schema_check.h"

namespace runner {

// $RUNNER_SCHEMA_DIR when set and non-empty, else the source tree's schemas/ folder.
std::filesystem::path schema_directory();

// The parsed schema file `name` (e.g. "experiment.schema.json"), keys in file order. A missing or
// unparsable file is a UserError naming it.
nlohmann::ordered_json load_schema(const std::string& name);

// A schema file read, parsed and compiled once while it stays the same file (path, size and
// modification time): planning a sweep validates every point, and doing all three per point
// made 100,000 points take minutes.
struct LoadedSchema {
  explicit LoadedSchema(nlohmann::ordered_json parsed)
      : json(std::move(parsed)), compiled(nlohmann::json(json)) {}
  nlohmann::ordered_json json;  // keys in file order (for messages)
  CompiledSchema compiled;
};
std::shared_ptr<const LoadedSchema> cached_schema(const std::string& name);

}  // namespace runner
