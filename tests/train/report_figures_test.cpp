// The report's figures of a run with a validation set and without a test set: the epochs and
// curves hold the validation figures and no test figures (absent, not zeros), and the report
// schema accepts metrics of either set but not of neither.
#include <gtest/gtest.h>

#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "runner/report/curves.h"
#include "runner/report/report.h"

namespace runner {
namespace {

TrainingOutcome validated_only() {
  TrainingOutcome outcome;
  EpochRecord epoch;
  epoch.epoch = 1;
  epoch.train_loss = 1.5;
  epoch.val_loss = 1.25;
  epoch.val_accuracy = 0.5;
  epoch.step = 8;
  outcome.epochs = {epoch};
  return outcome;
}

TEST(ReportFigures, WithoutATestSetTheEpochsAndCurvesHaveNoTestFigures) {
  const TrainingOutcome outcome = validated_only();
  RunRecord report;
  report.epochs = epoch_records(outcome.epochs);
  report.curves = curves_record(outcome);
  const nlohmann::json written = run_record_json(report);
  const nlohmann::json& epochs = written["epochs"];
  EXPECT_FALSE(epochs[0].contains("test_loss"));
  EXPECT_FALSE(epochs[0].contains("test_accuracy"));
  EXPECT_EQ(epochs[0]["val_loss"], 1.25);
  EXPECT_EQ(epochs[0]["val_accuracy"], 0.5);
  const nlohmann::json& curves = written["curves"];
  EXPECT_EQ(curves["test"], nlohmann::json::array());
  EXPECT_EQ(
      curves["validation"],
      nlohmann::json::array({{{"step", 8}, {"epoch", 1}, {"loss", 1.25}, {"accuracy", 0.5}}}));
}

TEST(ReportFigures, TheSchemaTakesMetricsOfEitherSetButNotOfNeither) {
  nlohmann::json metrics_schema = load_schema("report.schema.json")["properties"]["metrics"];
  metrics_schema["$schema"] = "http://json-schema.org/draft-07/schema#";
  Evaluation validation;
  validation.count = 4;
  validation.correct = 3;
  RunRecord report;
  report.metrics = RecordMetrics{};
  add_validation_metrics(*report.metrics, validation);
  EXPECT_TRUE(schema_violations(metrics_schema, run_record_json(report)["metrics"]).empty());
  EXPECT_FALSE(schema_violations(metrics_schema, nlohmann::json::object()).empty());
  EXPECT_FALSE(schema_violations(metrics_schema, {{"best_epoch", 2}}).empty());
  report.metrics = metrics_record(validation, {"a", "b"});
  const nlohmann::json test_only = run_record_json(report)["metrics"];
  EXPECT_TRUE(schema_violations(metrics_schema, test_only).empty());
}

}  // namespace
}  // namespace runner
