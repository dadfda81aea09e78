// The one place valijson is used: validate a JSON value against a draft-7 JSON Schema.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace runner {

// One error as valijson reports it: context like {"<root>", "[model]", "[layers]", "[3]"}.
struct SchemaViolation {
  std::vector<std::string> context;
  std::string description;
};

// Every violation of `schema` by `instance` (empty when it conforms). A schema valijson cannot
// parse throws std::runtime_error.
std::vector<SchemaViolation> schema_violations(const nlohmann::json& schema,
                                               const nlohmann::json& instance);

}  // namespace runner
