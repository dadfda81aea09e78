// Reading a JSON Schema for error messages: the sub-schemas that apply at a field, and what they
// expect in words ("an integer >= 1", "one of sgd, adam"). Validation itself is valijson's job.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/config/field_path.h"

namespace runner {

class CompiledSchema;

class SchemaWalk {
 public:
  explicit SchemaWalk(const nlohmann::ordered_json& root);
  ~SchemaWalk();
  SchemaWalk(const SchemaWalk&) = delete;
  SchemaWalk& operator=(const SchemaWalk&) = delete;

  // The schemas written for the value at `path` of `instance` (properties and items followed,
  // $refs resolved, allOf/anyOf entered, if/then/else chosen by evaluating `if` on the value).
  // `path` may end in a key the instance lacks (a missing required key).
  std::vector<const nlohmann::ordered_json*> at(const nlohmann::json& instance,
                                                const FieldPath& path) const;

  // What the schemas at a field expect, in words.
  std::string describe(const std::vector<const nlohmann::ordered_json*>& schemas) const;
  // The property names they know, in schema order; the enum values they allow, as text.
  std::vector<std::string> known_keys(
      const std::vector<const nlohmann::ordered_json*>& schemas) const;
  std::vector<std::string> enum_values(
      const std::vector<const nlohmann::ordered_json*>& schemas) const;

 private:
  const nlohmann::ordered_json& resolve(const nlohmann::ordered_json& schema) const;
  // `schema` and every schema it applies through allOf/anyOf/oneOf/if-then-else, in order.
  void expand(const nlohmann::ordered_json& schema, const nlohmann::json& value,
              std::vector<const nlohmann::ordered_json*>& out) const;
  bool matches(const nlohmann::ordered_json& schema, const nlohmann::json& value) const;
  std::string describe_one(const nlohmann::ordered_json& schema) const;

  const nlohmann::ordered_json& root_;
  // Each `if` schema compiled once (with the root's definitions where it refers to one): a config
  // with many problems asks about the same conditions at every one of them.
  mutable std::map<const nlohmann::ordered_json*, std::unique_ptr<CompiledSchema>> conditions_;
};

// A value for a message: compact JSON, shortened when long.
std::string short_json(const nlohmann::json& value);

}  // namespace runner
