// A schema compiled once and used for many values (a sweep's points): the same verdicts as
// validating each value afresh, and a schema file reloaded when it changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "test_support.h"

namespace runner {
namespace {

// A plain object root (validated property by property) with a $ref into its definitions.
const nlohmann::json kSchema = nlohmann::json::parse(R"({
  "type": "object", "additionalProperties": false, "required": ["name"],
  "properties": {
    "name": {"type": "string", "pattern": "^[a-z]+$"},
    "training": {"type": "object", "additionalProperties": false,
                 "properties": {"batch_size": {"$ref": "#/definitions/positive"}}},
    "seed": {"type": "integer"}
  },
  "definitions": {"positive": {"type": "integer", "minimum": 1}}
})");

TEST(CompiledSchema, GivesTheVerdictsOfAFreshValidationForEveryValue) {
  const CompiledSchema compiled(kSchema);
  const std::vector<std::string> values = {
      R"({"name": "a", "training": {"batch_size": 4}, "seed": 1})",
      R"({"name": "a", "training": {"batch_size": 4}, "seed": 2})",  // a remembered property
      R"({"name": "a", "training": {"batch_size": 0}, "seed": 1})",  // the $ref's minimum
      R"({"name": "A", "training": {"batch_size": 4}})",             // the pattern
      R"({"training": {"batch_size": 4}})",                          // required
      R"({"name": "a", "extra": 1})",                                // additionalProperties
      R"({"name": "a", "training": {"batch_size": 4, "lr": 1}})",    // nested additional
      R"({"name": "a", "seed": "1"})",                               // strict types
      R"([1, 2])",
      R"({"name": "a", "training": {"batch_size": 4}, "seed": 1})",  // valid again
  };
  // The same schema, validated whole by valijson: a keyword the split does not know.
  nlohmann::json whole_schema = kSchema;
  whole_schema["minProperties"] = 0;
  const CompiledSchema whole(whole_schema);
  // valijson's summaries of a property that failed ("Failed to validate against schema
  // associated with property name 'training'") are left out where the split checks the property
  // on its own; what is wrong, at the field where it is wrong, is the same, in the same order.
  auto leaves = [](const std::vector<SchemaViolation>& violations) {
    std::vector<SchemaViolation> out;
    for (const auto& violation : violations) {
      if (violation.description.find("associated with property name") == std::string::npos) {
        out.push_back(violation);
      }
    }
    return out;
  };
  for (const std::string& text : values) {
    const nlohmann::json value = nlohmann::json::parse(text);
    const auto expected = leaves(whole.violations(value));
    const auto found = leaves(compiled.violations(value));
    EXPECT_EQ(compiled.violations(value).empty(), expected.empty()) << text;
    ASSERT_EQ(found.size(), expected.size()) << text;
    for (std::size_t i = 0; i < found.size(); ++i) {
      EXPECT_EQ(found[i].context, expected[i].context) << text;
      EXPECT_EQ(found[i].description, expected[i].description) << text;
    }
  }
}

TEST(CompiledSchema, AReusedSchemaStillRefusesAValueAfterAcceptingOthers) {
  const CompiledSchema compiled(kSchema);
  for (int batch = 1; batch <= 100; ++batch) {
    EXPECT_TRUE(
        compiled.violations({{"name", "a"}, {"training", {{"batch_size", batch}}}}).empty());
  }
  const auto refused = compiled.violations({{"name", "a"}, {"training", {{"batch_size", -1}}}});
  const std::vector<std::string> where = {"<root>", "[training]", "[batch_size]"};
  EXPECT_TRUE(std::any_of(refused.begin(), refused.end(),
                          [&](const SchemaViolation& v) { return v.context == where; }))
      << refused.size() << " violations, none at training.batch_size";
}

TEST(CachedSchema, IsReadOnceAndAgainWhenTheFileChanges) {
  testing::TempDir dir;
  auto write = [&](const std::string& text) { std::ofstream(dir / "t.schema.json") << text; };
  write(R"({"type": "object", "properties": {"a": {"type": "integer"}}})");
  const testing::ScopedEnv env("RUNNER_SCHEMA_DIR", dir.path());
  auto first = cached_schema("t.schema.json");
  EXPECT_EQ(cached_schema("t.schema.json"), first) << "read again though unchanged";
  EXPECT_FALSE(first->compiled.violations({{"a", "x"}}).empty());
  write(R"({"type": "object", "properties": {"a": {"type": "string"}}, "title": "changed"})");
  auto second = cached_schema("t.schema.json");
  EXPECT_NE(second, first) << "a changed file was not read again";
  EXPECT_TRUE(second->compiled.violations({{"a", "x"}}).empty());
}

}  // namespace
}  // namespace runner
