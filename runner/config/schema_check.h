// The one place valijson is used: validate a JSON value against a draft-7 JSON Schema.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace runner {

// One error as valijson reports it: context like {"<root>", "[model]", "[layers]", "[3]"}.
struct SchemaViolation {
  std::vector<std::string> context;
  std::string description;
};

// A schema parsed once, for validating many values (a sweep plans every point). Where the root is
// a plain object schema (properties, required, additionalProperties, definitions), a value's
// properties are validated one by one and each property value found valid is remembered, so the
// many configs of a sweep, which differ in a few fields, are checked in a fraction of the time.
class CompiledSchema {
 public:
  // A schema valijson cannot parse throws std::runtime_error.
  explicit CompiledSchema(const nlohmann::json& schema);
  ~CompiledSchema();
  CompiledSchema(const CompiledSchema&) = delete;
  CompiledSchema& operator=(const CompiledSchema&) = delete;

  // Every violation of the schema by `instance` (empty when it conforms). Thread-safe.
  std::vector<SchemaViolation> violations(const nlohmann::json& instance) const;

 private:
  struct Parsed;      // valijson's schema, and its validator with the patterns compiled once
  struct ByProperty;  // the root's properties as schemas of their own, and what passed them
  std::unique_ptr<Parsed> parsed_;
  std::unique_ptr<ByProperty> by_property_;  // null where the root is not a plain object schema
  // The violations found property by property; nullopt where the root itself is wrong (not an
  // object, a required key missing, an unknown key refused), which the whole schema words.
  std::optional<std::vector<SchemaViolation>> violations_by_property(
      const nlohmann::json& instance) const;
};

// CompiledSchema(schema).violations(instance), for a schema used once.
std::vector<SchemaViolation> schema_violations(const nlohmann::json& schema,
                                               const nlohmann::json& instance);

}  // namespace runner
