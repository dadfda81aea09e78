// model.init and a layer's init: the schema and kWeightInitNames agree, the resolved JSON records
// model.init (and reads back), and an unknown name is an error naming the field.
#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "runner/config/schema_file.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

std::filesystem::path tiny() {
  return testing::source_dir() / "configs" / "tiny_synthetic.yaml";
}

TEST(ModelInit, SchemaListsExactlyTheKnownInits) {
  const auto schema = load_schema("experiment.schema.json");
  std::vector<std::string> in_schema, known;
  for (const auto& name : schema.at("definitions").at("weight_init").at("enum")) {
    in_schema.push_back(name.get<std::string>());
  }
  for (const auto& [init, name] : kWeightInitNames) {
    known.emplace_back(name);
    EXPECT_EQ(weight_init_named(name), init);
    EXPECT_EQ(weight_init_name(init), name);
  }
  EXPECT_EQ(in_schema, known);
}

TEST(ModelInit, DefaultsToPyTorchsAndIsRecordedInTheResolvedConfig) {
  Experiment plain = load_experiment(tiny(), {});
  EXPECT_EQ(plain.model.init, WeightInit::pytorch_default);
  EXPECT_EQ(plain.resolved["model"]["init"], "default");

  Experiment e = load_experiment(tiny(), {"model.init=kaiming_normal"});
  EXPECT_EQ(e.model.init, WeightInit::kaiming_normal);
  EXPECT_EQ(e.resolved["model"]["init"], "kaiming_normal");
  ConfigDocument again{"resolved", e.resolved, SourceMap("resolved")};
  EXPECT_NO_THROW(validate_config(again));
  EXPECT_EQ(resolve_experiment(again).model.init, WeightInit::kaiming_normal);
}

TEST(ModelInit, AnUnknownInitNamesTheFieldAndTheChoices) {
  try {
    load_experiment(tiny(), {"model.init=xavier"});
    FAIL() << "no error";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("model.init"), std::string::npos) << message;
    EXPECT_NE(message.find("kaiming_normal"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace runner
