// training.loss's options and dataset.sampler as resolved: the resolved JSON (a valid config
// itself; the plain loss and the default sampler spelled as before, so old configs keep their
// hash) and what is refused.
#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "test_support.h"

namespace runner {
namespace {

Experiment tiny_loss(std::vector<std::string> overrides) {
  return load_experiment(testing::source_dir() / "configs" / "tiny_synthetic.yaml", overrides);
}

std::string loss_error(std::vector<std::string> overrides) {
  try {
    return "no error; resolved: " + tiny_loss(overrides).resolved.dump();
  } catch (const UserError& error) {
    return error.what();
  }
}

TEST(LossConfig, OptionsResolveAndTheResolvedConfigIsValid) {
  const Experiment given =
      tiny_loss({"training.loss={class_weights: [1, 2, 0, 1, 1, 1, 1, 1, 1, "
                 "1.5], focal_gamma: 2}",
                 "dataset.sampler=balanced"});
  const LossSpec& loss = given.training.loss_options;
  EXPECT_EQ(loss.class_weights.size(), 10u);
  EXPECT_EQ(loss.class_weights[9], 1.5);
  EXPECT_FALSE(loss.balanced);
  EXPECT_EQ(loss.focal_gamma, 2);
  EXPECT_TRUE(given.dataset.balanced_sampler);
  EXPECT_EQ(given.resolved["training"]["loss"]["focal_gamma"], 2.0);
  EXPECT_EQ(given.resolved["dataset"]["sampler"], "balanced");
  const Experiment balanced = tiny_loss({"training.loss={class_weights: balanced}"});
  EXPECT_TRUE(balanced.training.loss_options.balanced);
  EXPECT_EQ(balanced.resolved["training"]["loss"], nlohmann::json({{"class_weights", "balanced"}}));
  for (const Experiment* e : {&given, &balanced}) {
    for (const auto& v : schema_violations(load_schema("experiment.schema.json"), e->resolved))
      ADD_FAILURE() << v.description;
  }
  // The plain loss and the default sampler resolve as they did before the options.
  const Experiment plain = tiny_loss({});
  EXPECT_EQ(plain.resolved["training"]["loss"], "cross_entropy");
  EXPECT_FALSE(plain.resolved["dataset"].contains("sampler"));
  EXPECT_EQ(tiny_loss({"training.loss={}", "dataset.sampler=random"}).resolved, plain.resolved);
}

TEST(LossConfig, BadOptionsAreRefusedNamingTheField) {
  const std::string negative = loss_error({"training.loss={class_weights: [1, -1]}"});
  EXPECT_NE(negative.find("training.loss.class_weights"), std::string::npos) << negative;
  const std::string zeros = loss_error({"training.loss={class_weights: [0, 0]}"});
  EXPECT_NE(zeros.find("at least one weight above 0"), std::string::npos) << zeros;
  const std::string gamma = loss_error({"training.loss={focal_gamma: -1}"});
  EXPECT_NE(gamma.find("training.loss.focal_gamma"), std::string::npos) << gamma;
  const std::string sampler = loss_error({"dataset.sampler=weighted"});
  EXPECT_NE(sampler.find("dataset.sampler"), std::string::npos) << sampler;
  const std::string name = loss_error({"training.loss=focal"});
  EXPECT_NE(name.find("training.loss"), std::string::npos) << name;
}

}  // namespace
}  // namespace runner
