// `runner sweep ... --point K`: one point of the plan into the sweep folder, its exit code, the
// range check, skipping a done point, and how its lock meets a whole sweep's.
#include <gtest/gtest.h>

#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

std::string point_args(const TempDir& tmp, const std::string& rest) {
  return "sweep " + tiny_config() + " --name s --output " + tmp.path().string() +
         " --warmup-steps 2 --steps 4 --grid training.batch_size=8,16,32,64 " + rest;
}

TEST(SweepPoint, RunsOnlyThatPointAndWritesNoSummary) {
  TempDir tmp;
  auto result = run_runner(point_args(tmp, "--point 2"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto dir = tmp / "s";
  EXPECT_NE(result.output.find("[2/4] batch_size=16: completed"), std::string::npos)
      << result.output;
  json report = read_json(dir / "batch_size=16" / "report.json");
  ASSERT_TRUE(report.is_object()) << result.output;
  EXPECT_EQ(report["status"], "completed");
  EXPECT_EQ(report["sweep_point"]["id"], "batch_size=16");
  for (const char* other : {"batch_size=8", "batch_size=32", "batch_size=64"})
    EXPECT_FALSE(std::filesystem::exists(dir / other / "report.json")) << other;
  EXPECT_FALSE(std::filesystem::exists(dir / "summary.json"));
  json manifest = read_json(dir / "sweep.json");
  ASSERT_TRUE(manifest.is_object());
  EXPECT_EQ(manifest["points"].size(), 4u);

  // The whole sweep afterwards skips it, as if it had run the point itself.
  auto whole = run_runner(point_args(tmp, "--quiet"));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  EXPECT_NE(whole.output.find("(3 run now, 1 skipped as done)"), std::string::npos) << whole.output;
}

TEST(SweepPoint, ADonePointIsSkippedUnlessForced) {
  TempDir tmp;
  ASSERT_EQ(run_runner(point_args(tmp, "--point 1")).exit_code, 0);
  auto report = tmp / "s" / "batch_size=8" / "report.json";
  std::string first = read_file(report);
  auto again = run_runner(point_args(tmp, "--point 1"));
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("[1/4] batch_size=8: done: skipped"), std::string::npos)
      << again.output;
  EXPECT_EQ(read_file(report), first);
  auto forced = run_runner(point_args(tmp, "--point 1 --force"));
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_NE(read_file(report), first);
}

TEST(SweepPoint, ASweepFileWithAnEmbeddedConfigRunsPointByPoint) {
  TempDir tmp;
  auto file = tmp.write("w.yaml", embedded_config_sweep());
  std::string args = "sweep " + file.string() + " -q --output " + tmp.path().string();
  for (const char* k : {"2", "1"}) {
    auto point = run_runner(args + " --point " + k);
    ASSERT_EQ(point.exit_code, 0) << point.output;
  }
  EXPECT_EQ(read_json(tmp / "w" / "width=0.5" / "report.json")["status"], "completed");
  EXPECT_EQ(read_json(tmp / "w" / "width=1" / "report.json")["status"], "completed");
  auto report = run_runner("report " + (tmp / "w").string() + " -q");
  EXPECT_EQ(report.exit_code, 0) << report.output;
  json rows = read_json(tmp / "w" / "summary.json")["points"];
  ASSERT_EQ(rows.size(), 2u) << report.output;
  for (const json& row : rows) EXPECT_EQ(row["status"], "completed") << row;
}

TEST(SweepPoint, APointOutOfRangeIsAUserErrorNamingTheRange) {
  TempDir tmp;
  auto result = run_runner(point_args(tmp, "--point 5"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--point: found 5, expected a point from 1 to 4"), std::string::npos)
      << result.output;
  auto zero = run_runner(point_args(tmp, "--point 0"));
  EXPECT_EQ(zero.exit_code, 2) << zero.output;
  EXPECT_NE(zero.output.find("--point"), std::string::npos) << zero.output;
}

TEST(SweepPoint, TheExitCodeIsThePointsStatus) {
  TempDir tmp;
  // conv2 sees 4x8x8: a 9x9 kernel does not fit (invalid, 2); cuda is not usable here (failed, 1).
  std::string args = "sweep " + tiny_config() + " --name s --output " + tmp.path().string() +
                     " --warmup-steps 1 --steps 2 --grid model.layers[3].kernel=3,9";
  auto invalid = run_runner(args + " --point 2");
  EXPECT_EQ(invalid.exit_code, 2) << invalid.output;
  json invalid_report = read_json(tmp / "s" / "kernel=9" / "report.json");
  EXPECT_EQ(invalid_report["status"], "invalid");
  EXPECT_TRUE(invalid_report["machine_load"]["cores"].is_number()) << "every report has the load";
  auto failed = run_runner(args + " --set device=cuda --point 1");
  json report = read_json(tmp / "s" / "kernel=3" / "report.json");
  if (report["status"] == "completed") GTEST_SKIP() << "this runner has a usable GPU";
  EXPECT_EQ(failed.exit_code, 1) << failed.output;
  EXPECT_EQ(report["status"], "failed");
}

TEST(SweepPoint, PointsShareTheFolderButNotWithAWholeSweep) {
  TempDir tmp;
  auto lock = (tmp / "s" / ".lock").string();
  ASSERT_EQ(run_runner(point_args(tmp, "--dry-run -q")).exit_code, 0);
  // A point run holds the folder's lock shared: another point runs beside it ...
  auto beside =
      run_command("flock -s " + lock + " " + RUNNER_BINARY + " " + point_args(tmp, "--point 3 -q"));
  EXPECT_EQ(beside.exit_code, 0) << beside.output;
  // ... but a whole sweep does not start while points run,
  auto whole = run_command("flock -s " + lock + " " + RUNNER_BINARY + " " + point_args(tmp, "-q"));
  EXPECT_EQ(whole.exit_code, 2) << whole.output;
  EXPECT_NE(whole.output.find("`runner sweep --point` processes are writing"), std::string::npos)
      << whole.output;
  // and a point does not start while a whole sweep runs.
  auto during =
      run_command("flock -x " + lock + " " + RUNNER_BINARY + " " + point_args(tmp, "--point 4 -q"));
  EXPECT_EQ(during.exit_code, 2) << during.output;
  EXPECT_NE(during.output.find("writing into this folder"), std::string::npos) << during.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "s" / "batch_size=64" / "report.json"));
}

}  // namespace
}  // namespace runner::testing
