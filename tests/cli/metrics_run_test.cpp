// The `metrics` list end to end with the runner binary: every epoch's figures of both sets, the
// kept model's figures and per-class table in a report the schema accepts, the table equal to
// what the report's own confusion matrix gives, the best epoch chosen by a metric's figure, and
// `runner compare` comparing the figures.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

json metrics_report_of(const CommandResult& result) {
  std::ifstream in(report_path_in(result.output));
  return in ? json::parse(in) : json();
}

TEST(MetricsRun, EveryEpochAndTheKeptModelCarryTheListedFiguresAndAMetricPicksTheBestEpoch) {
  TempDir tmp;
  const CommandResult result = run_runner(
      (source_dir() / "configs" / "tiny_synthetic.yaml").string() +
      " --set dataset.validation_split=0.2 --set training.threads=1 --set training.epochs=3"
      " --set 'metrics=[{top_k: 2}, balanced_accuracy, per_class_precision_recall]'"
      " --set checkpoint.path=net.safetensors --set checkpoint.monitor=val_macro_f1"
      " --output " +
      tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const json report = metrics_report_of(result);
  for (const auto& v : schema_violations(load_schema("report.schema.json"), report))
    ADD_FAILURE() << v.description;
  // The monitored figure is measured though the list leaves it out, and the config says so.
  EXPECT_EQ(report["config"]["metrics"].size(), 4u) << report["config"]["metrics"].dump();

  const json& epochs = report["epochs"];
  ASSERT_EQ(epochs.size(), 3u);
  int best = 0;
  double best_f1 = -1;
  for (const json& e : epochs) {
    for (const char* key : {"val_top2_accuracy", "test_top2_accuracy", "val_balanced_accuracy",
                            "test_balanced_accuracy", "val_macro_f1", "test_macro_f1"}) {
      ASSERT_TRUE(e.contains(key) && e[key].is_number()) << key << " in " << e.dump();
      EXPECT_GE(e[key].get<double>(), 0.0);
      EXPECT_LE(e[key].get<double>(), 1.0);
    }
    // Top-2 holds at least what top-1 (the accuracy) does.
    EXPECT_GE(e["val_top2_accuracy"].get<double>(), e["val_accuracy"].get<double>());
    if (e["val_macro_f1"].get<double>() > best_f1) {
      best_f1 = e["val_macro_f1"];
      best = e["epoch"];
    }
  }
  const json& metrics = report["metrics"];
  EXPECT_EQ(metrics["best_epoch"], best);
  EXPECT_EQ(report["checkpoint"]["monitor"], "val_macro_f1");
  EXPECT_DOUBLE_EQ(metrics["val_macro_f1"].get<double>(), best_f1);
  EXPECT_NE(result.output.find("Metrics of the kept model: test_balanced_accuracy"),
            std::string::npos)
      << result.output;

  // The per-class table, worked out again from the report's confusion matrix.
  const json& table = metrics["per_class_precision_recall"];
  const json& classes = metrics["classes"];
  const json& matrix = metrics["confusion_matrix"];
  ASSERT_EQ(table.size(), classes.size());
  double recall_sum = 0;
  int with_images = 0;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    std::int64_t support = 0, predicted = 0;
    for (std::size_t j = 0; j < classes.size(); ++j) {
      support += matrix[k][j].get<std::int64_t>();
      predicted += matrix[j][k].get<std::int64_t>();
    }
    const double right = matrix[k][k].get<double>();
    const json& entry = table[classes[k].get<std::string>()];
    EXPECT_EQ(entry["support"], support);
    if (predicted > 0) {
      EXPECT_DOUBLE_EQ(entry["precision"].get<double>(), right / predicted);
    } else {
      EXPECT_TRUE(entry["precision"].is_null());
    }
    if (support > 0) {
      EXPECT_DOUBLE_EQ(entry["recall"].get<double>(), right / support);
      recall_sum += right / support;
      ++with_images;
    }
  }
  EXPECT_NEAR(metrics["test_balanced_accuracy"].get<double>(), recall_sum / with_images, 1e-12);
  EXPECT_TRUE(metrics["val_per_class_precision_recall"].is_object());

  // compare: the figures are compared as the accuracy is.
  const CommandResult compared = run_runner("compare " + report_path_in(result.output) + " " +
                                            report_path_in(result.output) + " --json");
  ASSERT_EQ(compared.exit_code, 0) << compared.output;
  EXPECT_NE(compared.output.find("\"test_top2_accuracy\""), std::string::npos) << compared.output;
  EXPECT_NE(compared.output.find("\"val_macro_f1\""), std::string::npos) << compared.output;
}

}  // namespace
}  // namespace runner::testing
