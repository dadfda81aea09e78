// `runner bench`: per-layer forward and backward times, loss, update and data wait make up the
// profile, which the report sets against the measured (un-profiled) step time.
#include <gtest/gtest.h>

#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

TEST(Bench, PerLayerTimesMakeUpTheProfileAndRoughlyTheStep) {
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
  // The parts are the whole profile: every timed label lands in a layer row or in "other".
  double parts = 0;
  for (const json& layer : profile["layers"])
    parts += layer["forward_seconds"].get<double>() + layer["backward_seconds"].get<double>();
  for (const json& part : profile["other"]) parts += part["seconds"].get<double>();
  double sum = profile["sum_seconds"], measured = report["step_time"]["median_seconds"];
  EXPECT_NEAR(parts, sum, 1e-9 * sum) << profile;
  // How closely they match the un-profiled step is a timing, measured by `make bench` on a quiet
  // machine (about 1.0); a loaded CI machine moves it by tens of percent. Here only a gross
  // error (a phase counted twice or left out) must fail.
  EXPECT_GT(sum / measured, 0.25) << "sum of the parts " << sum << " s, measured step " << measured
                                  << " s\n"
                                  << result.output;
  EXPECT_LT(sum / measured, 4.0) << result.output;
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
