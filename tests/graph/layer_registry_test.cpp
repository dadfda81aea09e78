// The layer kinds are declared in the graph's registry and in the schema: the two lists must be
// the same, each kind with its schema definition and its if/then entry (issue 12).
#include <gtest/gtest.h>

#include <set>

#include "runner/config/schema_file.h"
#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

std::set<std::string> registry_kinds() {
  std::set<std::string> kinds;
  for (const LayerKind& kind : layer_kinds()) kinds.insert(kind.type);
  return kinds;
}

TEST(LayerRegistry, SchemaEnumListsExactlyTheRegisteredKinds) {
  auto schema = load_schema("experiment.schema.json");
  std::set<std::string> in_schema;
  for (const auto& type : schema["definitions"]["layer"]["properties"]["type"]["enum"]) {
    in_schema.insert(type.get<std::string>());
  }
  EXPECT_EQ(in_schema, registry_kinds());
}

TEST(LayerRegistry, EveryKindHasItsSchemaDefinitionAndCondition) {
  auto schema = load_schema("experiment.schema.json");
  std::set<std::string> conditioned;
  for (const auto& entry : schema["definitions"]["layer"]["allOf"]) {
    std::string type = entry["if"]["properties"]["type"]["const"].get<std::string>();
    EXPECT_EQ(entry["then"]["$ref"].get<std::string>(), "#/definitions/" + type);
    conditioned.insert(type);
  }
  EXPECT_EQ(conditioned, registry_kinds());
  for (const std::string& type : registry_kinds()) {
    EXPECT_TRUE(schema["definitions"].contains(type)) << type << " has no schema definition";
  }
}

TEST(LayerRegistry, KindsAreUniqueAndComplete) {
  EXPECT_EQ(registry_kinds().size(), layer_kinds().size()) << "a kind is registered twice";
  for (const LayerKind& kind : layer_kinds()) {
    EXPECT_TRUE(kind.parse && kind.infer_shape && kind.params && kind.flops) << kind.type;
    EXPECT_LE(kind.min_inputs, kind.max_inputs) << kind.type;
  }
}

}  // namespace
}  // namespace runner
