// training.mixup, training.cutmix and training.mix as resolved: the spec, the resolved JSON (a
// valid config itself, without the keys when none is given), and errors naming the field.
#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "test_support.h"

namespace runner {
namespace {

Experiment tiny_mixed(std::vector<std::string> overrides) {
  return load_experiment(testing::source_dir() / "configs" / "tiny_synthetic.yaml", overrides);
}

std::string mixing_error(std::vector<std::string> overrides) {
  try {
    return "no error; resolved: " + tiny_mixed(overrides).resolved.dump();
  } catch (const UserError& error) {
    return error.what();
  }
}

TEST(MixingConfig, ResolvesToTimmsSettingsAndWritesThemOut) {
  const Experiment e = tiny_mixed({"training.mixup={alpha: 0.8}", "training.cutmix={alpha: 1.0}",
                                   "training.mix={switch_prob: 0.3}"});
  EXPECT_EQ(e.training.mixing.mixup_alpha, 0.8);
  EXPECT_EQ(e.training.mixing.cutmix_alpha, 1.0);
  EXPECT_EQ(e.training.mixing.prob, 1.0);
  EXPECT_EQ(e.training.mixing.switch_prob, 0.3);
  EXPECT_EQ(e.resolved["training"]["mix"], nlohmann::json::parse(R"({"prob": 1.0,
      "switch_prob": 0.3})"));
  EXPECT_EQ(e.resolved["training"]["cutmix"]["alpha"], 1.0);
  EXPECT_TRUE(schema_violations(load_schema("experiment.schema.json"), e.resolved).empty());
  // cutmix alone; and without either the resolved config has none of the keys.
  const Experiment cut = tiny_mixed({"training.cutmix={alpha: 1}"});
  EXPECT_EQ(cut.training.mixing.mixup_alpha, 0);
  EXPECT_TRUE(cut.training.mixing.enabled());
  EXPECT_FALSE(cut.resolved["training"].contains("mixup"));
  const Experiment plain = tiny_mixed({});
  EXPECT_FALSE(plain.training.mixing.enabled());
  EXPECT_FALSE(plain.resolved["training"].contains("mix"));
}

TEST(MixingConfig, BadSettingsAreRefusedNamingTheField) {
  const std::string zero = mixing_error({"training.mixup={alpha: 0}"});
  EXPECT_NE(zero.find("training.mixup.alpha"), std::string::npos) << zero;
  const std::string alone = mixing_error({"training.mix={prob: 0.5}"});
  EXPECT_NE(alone.find("training.mix"), std::string::npos) << alone;
  EXPECT_NE(alone.find("training.mixup"), std::string::npos) << alone;
  const std::string weighted =
      mixing_error({"training.cutmix={alpha: 1}", "training.loss={class_weights: balanced}"});
  EXPECT_NE(weighted.find("training.cutmix"), std::string::npos) << weighted;
  EXPECT_NE(weighted.find("cross_entropy"), std::string::npos) << weighted;
  const std::string focal =
      mixing_error({"training.mixup={alpha: 0.2}", "training.loss={focal_gamma: 2}"});
  EXPECT_NE(focal.find("training.mixup"), std::string::npos) << focal;
  const std::string probability =
      mixing_error({"training.mixup={alpha: 0.2}", "training.mix={switch_prob: 1.5}"});
  EXPECT_NE(probability.find("training.mix.switch_prob"), std::string::npos) << probability;
}

}  // namespace
}  // namespace runner
