// Sweeps under careless or hostile input (issue 11): names that would write outside the output
// folder, two sweeps in one folder, grids too large to expand, Ctrl-C while planning, and
// report folders with files that are not reports.
#include <gtest/gtest.h>

#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

std::string values(int count) {
  std::string out;
  for (int i = 1; i <= count; ++i) out += (i > 1 ? "," : "") + std::to_string(i);
  return out;
}

TEST(SweepSafety, AConfigNameThatIsAPathWritesNothingAnywhere) {
  TempDir tmp;
  auto config = tmp.write("c.yaml", read_file(tiny_config()));
  for (const std::string& name : {"../../escaped", "/tmp/escaped-abs"}) {
    write_file_atomically(config, read_file(tiny_config()));
    std::string text = read_file(config);
    text.replace(text.find("name: tiny_synthetic"), 20, "name: " + name);
    write_file_atomically(config, text);
    auto result =
        run_runner("sweep " + config.string() + " --grid training.batch_size=4 --output " +
                   (tmp / "out" / "deep").string());
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("name: found \"" + name + "\""), std::string::npos)
        << result.output;
  }
  EXPECT_FALSE(std::filesystem::exists(tmp / "escaped-sweep"));
  EXPECT_FALSE(std::filesystem::exists("/tmp/escaped-abs-sweep"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "out"));
  auto named =
      run_runner("sweep " + tiny_config() + " --grid training.batch_size=4 --name ../up --output " +
                 (tmp / "out").string());
  EXPECT_EQ(named.exit_code, 2) << named.output;
  EXPECT_NE(named.output.find("--name: found '../up'"), std::string::npos) << named.output;
}

TEST(SweepSafety, ASecondSweepIntoTheSameFolderStopsAtOnce) {
  TempDir tmp;
  std::string sweep =
      std::string(RUNNER_BINARY) + " sweep " + tiny_config() +
      " --quiet --mode train --set training.epochs=100000 --grid training.batch_size=4"
      " --name s --output " +
      tmp.path().string();
  auto lock = (tmp / "s" / ".lock").string();
  auto result = run_command("(" + sweep + " >/dev/null 2>&1 & pid=$!; while ! grep -q . " + lock +
                            " 2>/dev/null; do sleep 0.05; done; " + sweep +
                            "; echo second=$?; kill -TERM $pid; wait $pid; echo first=$?)");
  EXPECT_NE(result.output.find("second=2"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("another sweep (process "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("first=130"), std::string::npos) << result.output;
}

TEST(SweepSafety, AGridTooLargeToExpandIsRefused) {
  TempDir tmp;
  auto result =
      run_runner("sweep " + tiny_config() + " --dry-run --grid training.batch_size=" + values(400) +
                 " --grid training.epochs=" + values(400) + " --output " + tmp.path().string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("the grid has more than 100000 points"), std::string::npos)
      << result.output;
}

TEST(SweepSafety, CtrlCWhilePlanningALargeSweepExitsWith130) {
  TempDir tmp;
  std::string sweep = std::string(RUNNER_BINARY) + " sweep " + tiny_config() +
                      " --dry-run --grid training.batch_size=" + values(300) +
                      " --grid training.epochs=" + values(300) + " --output " + tmp.path().string();
  auto result = run_command("(timeout 60 " + sweep +
                            " & pid=$!; sleep 1; kill -INT $pid; wait $pid; echo exit=$?)");
  EXPECT_NE(result.output.find("exit=130"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("interrupted while"), std::string::npos) << result.output;
}

TEST(SweepSafety, AReportFolderWithAFileThatIsNotAReportSaysWhich) {
  TempDir tmp;
  auto run = run_runner(tiny_config() + " --quiet --set training.epochs=1 --output " +
                        tmp.path().string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  write_file_atomically(tmp / "junk" / "report.json", R"({"status": 5, "mode": []})");
  auto result = run_runner("report " + tmp.path().string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("left out: " + (tmp / "junk" / "report.json").string() +
                               ": not a report of this runner"),
            std::string::npos)
      << result.output;
  EXPECT_TRUE(std::filesystem::exists(tmp / "summary.md"));  // the others are summarised
}

}  // namespace
}  // namespace runner::testing
