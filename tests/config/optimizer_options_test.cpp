// The optimizer options beyond SGD and Adam: adamw with PyTorch's defaults, weight_decay_exclude,
// training.clip_grad_norm; their resolved JSON (itself a valid config) and bad values.
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

// The message of the UserError loading `tiny()` with `overrides` gives ("" for none).
std::string load_error(const std::vector<std::string>& overrides) {
  try {
    load_experiment(tiny(), overrides);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// The schema and kOptimizerTypeNames list the same types: a type added to one only would be
// refused by the schema or unknown when resolved.
TEST(OptimizerOptions, SchemaListsExactlyTheKnownTypes) {
  const auto schema = load_schema("experiment.schema.json");
  std::vector<std::string> in_schema, known;
  for (const auto& name :
       schema.at("definitions").at("optimizer").at("properties").at("type").at("enum")) {
    in_schema.push_back(name.get<std::string>());
  }
  for (const auto& [type, name] : kOptimizerTypeNames) {
    known.emplace_back(name);
    EXPECT_EQ(optimizer_type_named(name), type);
    EXPECT_EQ(optimizer_type_name(type), name);
  }
  EXPECT_EQ(in_schema, known);
}

TEST(OptimizerOptions, AdamwTakesPyTorchsDefaults) {
  Experiment e = load_experiment(tiny(), {"training.optimizer={type: adamw}"});
  const OptimizerSpec& o = e.training.optimizer;
  EXPECT_EQ(o.type, OptimizerType::adamw);
  EXPECT_DOUBLE_EQ(o.lr, 1e-3);
  EXPECT_DOUBLE_EQ(o.beta1, 0.9);
  EXPECT_DOUBLE_EQ(o.beta2, 0.999);
  EXPECT_DOUBLE_EQ(o.eps, 1e-8);
  EXPECT_DOUBLE_EQ(o.weight_decay, 0.01);
  EXPECT_EQ(o.state_names(), (std::vector<std::string>{"exp_avg", "exp_avg_sq"}));
  EXPECT_EQ(e.resolved["training"]["optimizer"]["type"], "adamw");
  EXPECT_EQ(e.resolved["training"]["optimizer"]["weight_decay"], 0.01);
  // Adam keeps its own default of no decay.
  Experiment adam = load_experiment(tiny(), {"training.optimizer={type: adam}"});
  EXPECT_DOUBLE_EQ(adam.training.optimizer.weight_decay, 0.0);
}

TEST(OptimizerOptions, ExclusionsAndClippingResolveAndAreRecorded) {
  Experiment e = load_experiment(
      tiny(), {"training.optimizer={type: sgd, weight_decay: 0.1, weight_decay_exclude: [norm]}",
               "training.clip_grad_norm=2.5"});
  EXPECT_FALSE(e.training.optimizer.decay_exclude_bias);
  EXPECT_TRUE(e.training.optimizer.decay_exclude_norm);
  EXPECT_DOUBLE_EQ(e.training.clip_grad_norm, 2.5);
  EXPECT_EQ(e.resolved["training"]["optimizer"]["weight_decay_exclude"],
            nlohmann::json::array({"norm"}));
  EXPECT_EQ(e.resolved["training"]["clip_grad_norm"], 2.5);

  // embedding: timm's no_weight_decay (the class token and position embedding).
  Experiment vit = load_experiment(
      tiny(), {"training.optimizer={type: adamw, weight_decay_exclude: [embedding, bias]}"});
  EXPECT_TRUE(vit.training.optimizer.decay_exclude_embedding);
  EXPECT_TRUE(vit.training.optimizer.decay_exclude_bias);
  EXPECT_FALSE(vit.training.optimizer.decay_exclude_norm);
  EXPECT_EQ(vit.resolved["training"]["optimizer"]["weight_decay_exclude"],
            nlohmann::json::array({"bias", "embedding"}));

  Experiment plain = load_experiment(tiny(), {});
  EXPECT_FALSE(plain.training.optimizer.decay_exclude_embedding);
  EXPECT_FALSE(plain.training.optimizer.decay_exclude_bias);
  EXPECT_FALSE(plain.training.optimizer.decay_exclude_norm);
  EXPECT_EQ(plain.training.clip_grad_norm, 0.0);
  EXPECT_EQ(plain.resolved["training"]["optimizer"]["weight_decay_exclude"],
            nlohmann::json::array());
  EXPECT_EQ(plain.resolved["training"]["clip_grad_norm"], 0);

  // The resolved JSON reads back as the same experiment.
  ConfigDocument again{"resolved", e.resolved, SourceMap("resolved")};
  EXPECT_NO_THROW(validate_config(again));
  EXPECT_EQ(resolve_experiment(again).resolved, e.resolved);
}

TEST(OptimizerOptions, BadValuesNameTheFieldAndWhatWasExpected) {
  const std::string exclude =
      load_error({"training.optimizer={type: adamw, weight_decay_exclude: [bias, weights]}"});
  EXPECT_NE(exclude.find("training.optimizer.weight_decay_exclude[1]"), std::string::npos)
      << exclude;
  EXPECT_NE(exclude.find("bias"), std::string::npos) << exclude;
  const std::string twice =
      load_error({"training.optimizer={type: adamw, weight_decay_exclude: [bias, bias]}"});
  EXPECT_NE(twice.find("training.optimizer.weight_decay_exclude: found [\"bias\",\"bias\"], "
                       "expected a list of items (each one of bias, norm, embedding), none "
                       "repeated"),
            std::string::npos)
      << twice;
  const std::string negative = load_error({"training.clip_grad_norm=-1"});
  EXPECT_NE(negative.find("training.clip_grad_norm: found -1"), std::string::npos) << negative;
}

// As PyTorch's SGD: Nesterov needs a momentum and no dampening (else it would silently be plain
// SGD, or a different method).
TEST(OptimizerOptions, NesterovNeedsMomentumAndNoDampening) {
  for (const char* optimizer : {"{type: sgd, lr: 0.1, nesterov: true}",
                                "{type: sgd, lr: 0.1, momentum: 0.9, dampening: 0.1, "
                                "nesterov: true}"}) {
    const std::string error = load_error({std::string("training.optimizer=") + optimizer});
    EXPECT_NE(error.find("training.optimizer.nesterov: Nesterov momentum with momentum"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("expected a momentum above 0 and a dampening of 0"), std::string::npos)
        << error;
  }
  EXPECT_EQ(load_error({"training.optimizer={type: sgd, lr: 0.1, momentum: 0.9, nesterov: true}"}),
            "");
}

}  // namespace
}  // namespace runner
