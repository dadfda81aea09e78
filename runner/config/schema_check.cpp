// valijson behind a small function, so that its headers and settings live in one file.
#define VALIJSON_USE_EXCEPTIONS 1
#include "runner/config/schema_check.h"

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace runner {

std::vector<SchemaViolation> schema_violations(const nlohmann::json& schema,
                                               const nlohmann::json& instance) {
  valijson::Schema parsed;
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  valijson::adapters::NlohmannJsonAdapter schema_adapter(schema);
  parser.populateSchema(schema_adapter, parsed);

  valijson::Validator validator;  // strict types: "5" is not an integer
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter instance_adapter(instance);
  validator.validate(parsed, instance_adapter, &results);

  std::vector<SchemaViolation> out;
  for (const auto& error : results) out.push_back({error.context, error.description});
  return out;
}

}  // namespace runner
