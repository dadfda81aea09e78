// `metrics:` and monitors of a metric's figure as resolved: the entries in order, the resolved
// JSON (a valid config itself, absent when none are given), errors naming the entry, and a
// monitored figure measured as if listed.
#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "test_support.h"

namespace runner {
namespace {

Experiment tiny_with(std::vector<std::string> overrides) {
  return load_experiment(testing::source_dir() / "configs" / "tiny_synthetic.yaml", overrides);
}

std::string metrics_error(std::vector<std::string> overrides) {
  try {
    return "no error; resolved: " + tiny_with(overrides).resolved.dump();
  } catch (const UserError& error) {
    return error.what();
  }
}

TEST(MetricsConfig, EntriesResolveInOrderAndTheResolvedConfigListsThem) {
  const Experiment e =
      tiny_with({"metrics=[{top_k: 5}, balanced_accuracy, macro_f1, per_class_precision_recall]"});
  const std::vector<MetricSpec> expected = {
      {"top_k", 5}, {"balanced_accuracy", 0}, {"macro_f1", 0}, {"per_class_precision_recall", 0}};
  EXPECT_EQ(e.metrics, expected);
  EXPECT_EQ(
      e.resolved["metrics"],
      nlohmann::json::parse(
          R"([{"top_k": 5}, "balanced_accuracy", "macro_f1", "per_class_precision_recall"])"));
  EXPECT_TRUE(schema_violations(load_schema("experiment.schema.json"), e.resolved).empty());
  // Without the key the resolved config has none (its hash stays what it was).
  EXPECT_FALSE(tiny_with({}).resolved.contains("metrics"));
  EXPECT_EQ(tiny_with({"metrics=[]"}).resolved, tiny_with({}).resolved);
}

TEST(MetricsConfig, BadEntriesAreRefusedNamingTheEntry) {
  const std::string unknown = metrics_error({"metrics=[macro_f1, f1_score]"});
  EXPECT_NE(unknown.find("metrics[1]"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("balanced_accuracy"), std::string::npos) << unknown;  // what is known
  const std::string without_k = metrics_error({"metrics=[top_k]"});
  EXPECT_NE(without_k.find("metrics[0]"), std::string::npos) << without_k;
  const std::string zero = metrics_error({"metrics=[{top_k: 0}]"});
  EXPECT_NE(zero.find("metrics[0]"), std::string::npos) << zero;
  const std::string twice = metrics_error({"metrics=[{top_k: 3}, macro_f1, {top_k: 3}]"});
  EXPECT_NE(twice.find("metrics[2]"), std::string::npos) << twice;
  EXPECT_NE(twice.find("second time"), std::string::npos) << twice;
  // Two different k are two metrics.
  EXPECT_EQ(tiny_with({"metrics=[{top_k: 3}, {top_k: 5}]"}).metrics.size(), 2u);
}

TEST(MetricsConfig, AMetricsFigureCanBeMonitoredAndIsThenMeasured) {
  const Experiment e = tiny_with({"dataset.validation_split=0.2", "checkpoint.path=m.safetensors",
                                  "checkpoint.monitor=val_macro_f1",
                                  "training.early_stopping={monitor: val_top3_accuracy}"});
  ASSERT_TRUE(e.checkpoint.monitor.has_value());
  EXPECT_EQ(e.checkpoint.monitor->monitor, "val_macro_f1");
  EXPECT_EQ(e.checkpoint.monitor->mode, MonitorMode::max);  // a figure other than a loss rises
  EXPECT_EQ(e.training.early_stopping.watch.mode, MonitorMode::max);
  // Measured as if listed, and the resolved config says so.
  const std::vector<MetricSpec> measured = {{"top_k", 3}, {"macro_f1", 0}};
  EXPECT_EQ(e.metrics, measured);
  EXPECT_EQ(e.resolved["metrics"], nlohmann::json::parse(R"([{"top_k": 3}, "macro_f1"])"));
  // Listed already: not twice.
  EXPECT_EQ(tiny_with({"dataset.validation_split=0.2", "metrics=[macro_f1]",
                       "training.early_stopping={monitor: val_macro_f1}"})
                .metrics.size(),
            1u);
}

TEST(MetricsConfig, AnUnknownMonitorIsRefusedNamingWhatCanBeWatched) {
  for (const char* monitor : {"val_f1", "test_macro_f1", "val_top0_accuracy", "macro_f1"}) {
    const std::string error =
        metrics_error({"dataset.validation_split=0.2",
                       std::string("training.early_stopping={monitor: ") + monitor + "}"});
    EXPECT_NE(error.find("training.early_stopping.monitor"), std::string::npos) << error;
    EXPECT_NE(error.find("val_macro_f1"), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace runner
