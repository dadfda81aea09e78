// `runner report results/` over unrelated runs: one table per experiment and mode, each with its
// mode's columns, a title naming the folder, and no sweep plots.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

TEST(RunsOverview, GroupsUnrelatedRunsByExperimentAndMode) {
  TempDir tmp;
  const std::string out = " --quiet --output " + tmp.path().string();
  ASSERT_EQ(run_runner(tiny_config() + " --set training.epochs=1" + out).exit_code, 0);
  ASSERT_EQ(
      run_runner(tiny_config() + " --set training.epochs=1 --set name=other_net" + out).exit_code,
      0);
  ASSERT_EQ(run_runner("bench " + tiny_config() + " --steps 3 --warmup-steps 1" + out).exit_code,
            0);
  // A trailing slash, as a shell completes it: the title still names the folder.
  auto result = run_runner("report " + tmp.path().string() + "/");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::string folder = tmp.path().filename().string();
  EXPECT_EQ(result.output.find("# Sweep"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("# Runs in " + folder + "\n\n3 runs of 3 experiment/mode kinds"),
            std::string::npos)
      << result.output;
  auto train = result.output.find(
      "## tiny_synthetic (train)\n\n| run | status | device | batch | "
      "epochs | test acc. | test loss | loss | images/s |");
  auto other = result.output.find("## other_net (train)\n");
  auto bench = result.output.find(
      "## tiny_synthetic (benchmark)\n\n| run | status | device | "
      "batch | images/s | images/s (whole run) | step ms (p10–p90) |");
  EXPECT_NE(train, std::string::npos) << result.output;
  EXPECT_NE(other, std::string::npos) << result.output;
  EXPECT_NE(bench, std::string::npos) << result.output;
  EXPECT_LT(other, bench);  // sorted by experiment, then mode
  EXPECT_LT(bench, train);
  // Read-only: a folder of runs is not a sweep's, nothing is written into it unless asked.
  EXPECT_NE(result.output.find("nothing written: "), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "summary.json"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "summary.md"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "report.html"));
  result = run_runner("report --html " + tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("plots: none for a folder of different experiments"),
            std::string::npos);
  json summary = read_json(tmp / "summary.json");
  EXPECT_EQ(summary["sweep"], folder);
  ASSERT_EQ(summary["points"].size(), 3u);
  for (const auto& problem : schema_problems("summary.schema.json", summary))
    ADD_FAILURE() << problem;
  std::ifstream md(tmp / "summary.md");
  std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind("# Runs in " + folder, 0), 0u) << text;
}

// A run that early stopping ended shows the epochs it reached, not the configured 15.
TEST(RunsOverview, ARunStoppedEarlyShowsTheEpochsItReached) {
  TempDir tmp;
  const std::string out = " --quiet --output " + tmp.path().string();
  const auto trained = run_runner(tiny_config() +
                                  " --set training.epochs=15 --set dataset.validation_split=0.25"
                                  " --set 'training.early_stopping={monitor: val_loss, "
                                  "patience: 1, min_delta: 0.05}'" +
                                  out);
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  // A second experiment: the folder is then one of unrelated runs, shown as the overview.
  ASSERT_EQ(
      run_runner(tiny_config() + " --set training.epochs=2 --set name=other_net" + out).exit_code,
      0);
  auto result = run_runner("report --html " + tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const json summary = read_json(tmp / "summary.json");
  ASSERT_EQ(summary["points"].size(), 2u);
  const json& first = summary["points"][0];
  const json& stopped =
      first.value("experiment", "") == "tiny_synthetic" ? first : summary["points"][1];
  ASSERT_EQ(stopped.value("experiment", ""), "tiny_synthetic") << summary["points"].dump();
  const json& losses = stopped["epoch_losses"];
  const int reached = losses.back()["epoch"];
  ASSERT_LT(reached, 15) << "early stopping did not stop the run: the test shows nothing";
  EXPECT_NE(result.output.find(fmt::format("| {} | ", reached)), std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("| 15 | "), std::string::npos) << result.output;
}

}  // namespace
}  // namespace runner::testing
