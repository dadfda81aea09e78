// dataset.validation_split, training.early_stopping and checkpoint.monitor as resolved: the mode
// that follows the monitor, Lightning's patience, the resolved JSON (a valid config itself), and
// configs without them resolving as before.
#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "test_support.h"

namespace runner {
namespace {

Experiment tiny(std::vector<std::string> overrides) {
  return load_experiment(testing::source_dir() / "configs" / "tiny_synthetic.yaml", overrides);
}

TEST(SelectionConfig, TheModeFollowsTheMonitorUnlessGiven) {
  const Experiment loss =
      tiny({"dataset.validation_split=0.1", "training.early_stopping={monitor: val_loss}",
            "checkpoint.path=m.safetensors", "checkpoint.monitor=val_accuracy"});
  EXPECT_TRUE(loss.training.early_stopping.enabled);
  EXPECT_EQ(loss.training.early_stopping.watch.monitor, "val_loss");
  EXPECT_EQ(loss.training.early_stopping.watch.mode, MonitorMode::min);
  EXPECT_EQ(loss.training.early_stopping.patience, 3);  // Lightning's default
  EXPECT_EQ(loss.training.early_stopping.min_delta, 0);
  ASSERT_TRUE(loss.checkpoint.monitor.has_value());
  EXPECT_EQ(loss.checkpoint.monitor->mode, MonitorMode::max);
  EXPECT_EQ(loss.dataset.validation_split, 0.1);
  const nlohmann::json& r = loss.resolved;
  EXPECT_EQ(r["dataset"]["validation_split"], 0.1);
  EXPECT_EQ(r["training"]["early_stopping"],
            nlohmann::json(
                {{"monitor", "val_loss"}, {"mode", "min"}, {"patience", 3}, {"min_delta", 0.0}}));
  EXPECT_EQ(r["checkpoint"]["monitor"], "val_accuracy");
  EXPECT_EQ(r["checkpoint"]["mode"], "max");
  // The resolved config is itself a valid config.
  EXPECT_TRUE(schema_violations(load_schema("experiment.schema.json"), r).empty());

  const Experiment given = tiny({"dataset.validation_split=0.1",
                                 "training.early_stopping={monitor: val_accuracy, mode: min, "
                                 "patience: 7, min_delta: 0.01}"});
  EXPECT_EQ(given.training.early_stopping.watch.mode, MonitorMode::min);
  EXPECT_EQ(given.training.early_stopping.patience, 7);
  EXPECT_EQ(given.training.early_stopping.min_delta, 0.01);
}

TEST(SelectionConfig, ConfigsWithoutThemResolveAsBefore) {
  const Experiment plain = tiny({});
  EXPECT_EQ(plain.dataset.validation_split, 0);
  EXPECT_FALSE(plain.training.early_stopping.enabled);
  EXPECT_FALSE(plain.checkpoint.monitor.has_value());
  EXPECT_FALSE(plain.resolved["dataset"].contains("validation_split"));
  EXPECT_FALSE(plain.resolved["training"].contains("early_stopping"));
  EXPECT_FALSE(plain.resolved["checkpoint"].contains("monitor"));
  EXPECT_EQ(tiny({"dataset.validation_split=0"}).resolved, plain.resolved);
}

}  // namespace
}  // namespace runner
