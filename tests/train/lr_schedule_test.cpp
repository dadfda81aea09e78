// Learning-rate schedules against PyTorch's schedulers: the lr of every step of each case in
// lr_schedule_golden.json (written by scripts/lr_schedule_golden.py), with each schedule read
// through the schema and the config reader as a user's config is.
#include "runner/train/lr_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "runner/config/load_config.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

// A config with `schedule` and an optimizer of `type` ("sgd" with momentum 0.9 where
// `momentum`) with `lr`, validated and resolved.
Experiment experiment_with(const json& schedule, double lr, const std::string& type = "sgd",
                           bool momentum = false) {
  json optimizer = {{"type", type}, {"lr", lr}};
  if (momentum && type == "sgd") optimizer["momentum"] = 0.9;
  ConfigDocument doc;
  doc.file = "golden.yaml";
  doc.source_map = SourceMap(doc.file);
  doc.json = {{"name", "golden"},
              {"dataset", {{"name", "synthetic"}}},
              {"model", {{"layers", {{{"name", "fc"}, {"type", "linear"}, {"out_features", 2}}}}}},
              {"training", {{"optimizer", optimizer}, {"schedule", schedule}}}};
  validate_config(doc);
  return resolve_experiment(doc);
}

// The message of the UserError `schedule` gives under an SGD without momentum ("" if accepted).
std::string error_of(const json& schedule) {
  try {
    experiment_with(schedule, 0.1);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

json golden() {
  std::ifstream in(source_dir() / "tests" / "train" / "lr_schedule_golden.json");
  return json::parse(in);
}

TEST(LearningRateSchedule, EveryStepMatchesPyTorch) {
  const json cases = golden()["cases"];
  ASSERT_GE(cases.size(), 8u);
  for (const json& c : cases) {
    const Experiment e =
        experiment_with(c["schedule"], c["lr"], c.value("optimizer", "sgd"), c.contains("momenta"));
    LearningRateSchedule schedule(e.training.schedule, c["lr"], c["steps_per_epoch"], c["epochs"]);
    const json& expected = c["lrs"];
    ASSERT_EQ(expected.size(), c["steps_per_epoch"].get<std::size_t>() * c["epochs"].get<int>());
    double worst = 0;
    for (std::size_t s = 0; s < expected.size(); ++s) {
      const double want = expected[s], got = schedule.at(static_cast<std::int64_t>(s));
      worst = std::max(worst, std::abs(got - want) / want);
    }
    // PyTorch's schedulers update the lr recursively: a few roundings away from a closed form.
    EXPECT_LT(worst, 1e-9) << c["name"] << ": largest relative difference " << worst;
    if (!c.contains("momenta")) {
      EXPECT_FALSE(schedule.momentum(0).has_value()) << c["name"];
      continue;
    }
    for (std::size_t s = 0; s < expected.size(); ++s) {
      const auto got = schedule.momentum(static_cast<std::int64_t>(s));
      ASSERT_TRUE(got.has_value()) << c["name"];
      EXPECT_NEAR(*got, c["momenta"][s].get<double>(), 1e-12) << c["name"] << " step " << s;
    }
  }
}

TEST(LearningRateSchedule, CycledMomentumNeedsAnOptimizerWithMomentum) {
  const json schedule = {{"type", "one_cycle"}, {"cycle_momentum", true}};
  const std::string error = error_of(schedule);
  EXPECT_NE(error.find("training.schedule.cycle_momentum: cycle_momentum with an sgd optimizer "
                       "without momentum (expected training.optimizer.momentum above 0"),
            std::string::npos)
      << error;
  EXPECT_NO_THROW(experiment_with(schedule, 0.1, "sgd", true));
  EXPECT_NO_THROW(experiment_with(schedule, 0.1, "adamw"));
  EXPECT_THROW(experiment_with({{"type", "cosine"}, {"cycle_momentum", true}}, 0.1, "adam"),
               UserError);  // one_cycle's key only
  EXPECT_THROW(experiment_with({{"type", "one_cycle"}, {"base_momentum", 0}}, 0.1, "adam"),
               UserError);
}

TEST(LearningRateSchedule, ConstantWithoutWarmupIsTheOptimizersLr) {
  LearningRateSchedule schedule(ScheduleSpec{}, 0.01, 5, 2);
  for (int s = 0; s < 10; ++s) EXPECT_EQ(schedule.at(s), 0.01);
  EXPECT_EQ(schedule.warmup_steps(), 0);
}

TEST(LearningRateSchedule, FractionalWarmupRoundsToWholeSteps) {
  ScheduleSpec spec;
  spec.warmup_epochs = 0.25;
  spec.warmup_start_factor = 0.5;
  LearningRateSchedule schedule(spec, 1.0, 10, 1);  // 2.5 steps: 3
  EXPECT_EQ(schedule.warmup_steps(), 3);
  EXPECT_DOUBLE_EQ(schedule.at(0), 0.5);
  EXPECT_DOUBLE_EQ(schedule.at(1), 0.5 + 0.5 / 3);
  EXPECT_DOUBLE_EQ(schedule.at(3), 1.0);
}

TEST(LearningRateSchedule, TheResolvedConfigHoldsTheScheduleWithItsDefaults) {
  const Experiment e = experiment_with({{"type", "one_cycle"}, {"warmup", {{"epochs", 0.5}}}}, 0.1);
  EXPECT_EQ(e.resolved["training"]["schedule"],
            json({{"type", "one_cycle"},
                  {"pct_start", 0.3},
                  {"div_factor", 25.0},
                  {"final_div_factor", 1e4},
                  {"warmup", {{"epochs", 0.5}, {"start_factor", 0.1}}}}));
  EXPECT_EQ(experiment_with({{"type", "constant"}}, 0.1).resolved["training"]["schedule"],
            json({{"type", "constant"}}));
  const Experiment cycled =
      experiment_with({{"type", "one_cycle"}, {"cycle_momentum", true}}, 0.1, "adam");
  EXPECT_EQ(cycled.resolved["training"]["schedule"]["cycle_momentum"], true);
  EXPECT_EQ(cycled.resolved["training"]["schedule"]["base_momentum"], 0.85);
  EXPECT_EQ(cycled.resolved["training"]["schedule"]["max_momentum"], 0.95);
}

TEST(LearningRateSchedule, FieldsOfAnotherTypeAreRefused) {
  EXPECT_THROW(experiment_with({{"type", "cosine"}, {"step_size", 2}}, 0.1), UserError);
  EXPECT_THROW(experiment_with({{"type", "step"}}, 0.1), UserError);  // step_size is required
  EXPECT_THROW(experiment_with({{"type", "step"}, {"step_size", 1}, {"gamma", 1.5}}, 0.1),
               UserError);
  EXPECT_THROW(experiment_with({{"type", "one_cycle"}, {"pct_start", 1}}, 0.1), UserError);
  EXPECT_THROW(experiment_with({{"type", "constant"}, {"warmup", {{"epochs", 0}}}}, 0.1),
               UserError);
}

TEST(LearningRateSchedule, MilestonesMustIncrease) {
  const std::string error = error_of({{"type", "multistep"}, {"milestones", {3, 2}}});
  EXPECT_NE(error.find("training.schedule.milestones"), std::string::npos) << error;
  EXPECT_NE(error.find("found 2 after 3, expected increasing epochs"), std::string::npos) << error;
}

}  // namespace
}  // namespace runner::testing
