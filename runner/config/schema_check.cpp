// valijson behind a small class, so that its headers and settings live in one file.
#define VALIJSON_USE_EXCEPTIONS 1
#include "runner/config/schema_check.h"

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace runner {

struct CompiledSchema::Parsed {
  valijson::Schema schema;
  // Strict types: "5" is not an integer. The validator keeps each `pattern` compiled (a
  // std::regex built per validation was a fifth of the time of planning a sweep).
  valijson::Validator validator;
  std::mutex mutex;  // validate() fills that cache
};

namespace {

// Keywords of a root schema that constrain only its own object (annotations aside): with no
// others, a value is valid when its keys are allowed and present and each property's value is
// valid against that property's schema.
bool is_plain_object_schema(const nlohmann::json& schema) {
  static const std::set<std::string> plain = {"$schema",    "$id",         "$comment",
                                              "title",      "description", "type",
                                              "properties", "required",    "additionalProperties",
                                              "definitions"};
  if (!schema.is_object() || !schema.contains("type") || schema["type"] != "object") return false;
  for (const auto& [key, value] : schema.items()) {
    if (!plain.count(key)) return false;
  }
  const auto extra = schema.find("additionalProperties");
  return schema.contains("properties") && schema["properties"].is_object() &&
         (extra == schema.end() || extra->is_boolean());
}

constexpr std::size_t kRememberedPerProperty = 4096;

}  // namespace

struct CompiledSchema::ByProperty {
  struct Property {
    std::unique_ptr<CompiledSchema> schema;
    std::set<std::string> passed;  // values (dumped) found valid
  };
  std::map<std::string, Property> properties;
  std::vector<std::string> required;
  bool additional = true;
  std::mutex mutex;  // guards `passed`
};

CompiledSchema::CompiledSchema(const nlohmann::json& schema) : parsed_(std::make_unique<Parsed>()) {
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  valijson::adapters::NlohmannJsonAdapter schema_adapter(schema);
  parser.populateSchema(schema_adapter, parsed_->schema);
  if (!is_plain_object_schema(schema)) return;
  by_property_ = std::make_unique<ByProperty>();
  by_property_->additional = schema.value("additionalProperties", true);
  for (const auto& key : schema.value("required", nlohmann::json::array())) {
    if (!key.is_string()) {
      by_property_.reset();
      return;
    }
    by_property_->required.push_back(key.get<std::string>());
  }
  for (const auto& [key, property] : schema["properties"].items()) {
    if (!property.is_object()) {  // true/false schemas: validated whole
      by_property_.reset();
      return;
    }
    nlohmann::json standalone = property;  // its $refs point into the root's definitions
    if (schema.contains("definitions")) standalone["definitions"] = schema["definitions"];
    by_property_->properties[key].schema = std::make_unique<CompiledSchema>(standalone);
  }
}

CompiledSchema::~CompiledSchema() = default;

std::optional<std::vector<SchemaViolation>> CompiledSchema::violations_by_property(
    const nlohmann::json& instance) const {
  if (!instance.is_object()) return std::nullopt;
  ByProperty& split = *by_property_;
  for (const std::string& key : split.required) {
    if (!instance.contains(key)) return std::nullopt;
  }
  std::vector<SchemaViolation> out;
  for (const auto& [key, value] : instance.items()) {
    auto property = split.properties.find(key);
    if (property == split.properties.end()) {
      if (!split.additional) return std::nullopt;
      continue;
    }
    const std::string text = value.dump();
    {
      std::lock_guard lock(split.mutex);
      if (property->second.passed.count(text)) continue;
    }
    std::vector<SchemaViolation> found = property->second.schema->violations(value);
    if (found.empty()) {
      std::lock_guard lock(split.mutex);
      auto& passed = property->second.passed;
      if (passed.size() >= kRememberedPerProperty) passed.clear();  // bounded memory
      passed.insert(text);
      continue;
    }
    // As valijson names them from the root: {"<root>", "[model]", "[layers]", ...}.
    for (SchemaViolation& violation : found) {
      auto after_root =
          violation.context.empty() ? violation.context.end() : violation.context.begin() + 1;
      violation.context.insert(after_root, "[" + key + "]");
      out.push_back(std::move(violation));
    }
  }
  return out;
}

std::vector<SchemaViolation> CompiledSchema::violations(const nlohmann::json& instance) const {
  if (by_property_) {
    // Each property checked once, what it found kept: a config with thousands of layers is not
    // validated a second time whole to learn what is wrong with it.
    if (auto found = violations_by_property(instance)) return *found;
  }
  // Not splittable, or wrong at the root (a key missing or unknown): the whole value, for
  // valijson's own list of what is wrong.
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter instance_adapter(instance);
  {
    std::lock_guard lock(parsed_->mutex);
    parsed_->validator.validate(parsed_->schema, instance_adapter, &results);
  }

  std::vector<SchemaViolation> out;
  for (const auto& error : results) out.push_back({error.context, error.description});
  return out;
}

std::vector<SchemaViolation> schema_violations(const nlohmann::json& schema,
                                               const nlohmann::json& instance) {
  return CompiledSchema(schema).violations(instance);
}

}  // namespace runner
