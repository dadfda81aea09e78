// `runner bench`: per-layer forward and backward times, loss, update and data wait add up to the
// measured (un-profiled) step time, and the report says so.
#include <gtest/gtest.h>

#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

TEST(Bench, PerLayerTimesAddUpToTheMeasuredStepTime) {
  TempDir tmp;
  // One thread: the profiled and the plain steps then share no thread-pool warm-up effects.
  auto result = run_runner("bench " + tiny_config() +
                           " --set training.threads=1 --warmup-steps 10 --steps 60 "
                           "--profile-steps 60 --output " +
                           tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("sum of the parts"), std::string::npos) << result.output;
  json report = read_json(reported_path(result.output));
  ASSERT_TRUE(report.is_object()) << result.output;
  for (const auto& problem : schema_problems("report.schema.json", report))
    ADD_FAILURE() << problem;
  EXPECT_EQ(report["mode"], "benchmark");
  const json& profile = report["profile"];
  ASSERT_EQ(profile["layers"].size(), 10u);
  for (const json& layer : profile["layers"]) {
    if (layer["type"] == "conv2d" || layer["type"] == "linear") {
      EXPECT_GT(layer["forward_seconds"].get<double>(), 0) << layer;
      EXPECT_GT(layer["backward_seconds"].get<double>(), 0) << layer;
    }
  }
  std::vector<std::string> others;
  for (const json& part : profile["other"]) others.push_back(part["label"]);
  EXPECT_NE(std::find(others.begin(), others.end(), "data wait"), others.end());
  EXPECT_NE(std::find(others.begin(), others.end(), "loss"), others.end());
  double sum = profile["sum_seconds"], measured = report["step_time"]["median_seconds"];
  EXPECT_NEAR(sum / measured, 1.0, 0.10)
      << "sum of the parts " << sum << " s, measured step " << measured << " s\n"
      << result.output;
  EXPECT_DOUBLE_EQ(profile["sum_over_measured"].get<double>(), sum / measured);
  EXPECT_EQ(report["step_time"]["steps"], 60);
  double fraction = report["throughput"]["data_wait_fraction"];
  EXPECT_GE(fraction, 0.0);
  EXPECT_LT(fraction, 1.0);
  EXPECT_GT(report["throughput"]["achieved_flops_per_second"].get<double>(), 0);
}

TEST(Bench, ABatchLargerThanTheDataIsAUserError) {
  TempDir tmp;
  auto result = run_runner("bench " + tiny_config() + " --set training.batch_size=2048 --output " +
                           tmp.path().string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(
                "training.batch_size: found 2048, but the training set has only 1024 images"),
            std::string::npos)
      << result.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "tiny_synthetic"))
      << "no run folder for a run that never started";
}

}  // namespace
}  // namespace runner::testing
