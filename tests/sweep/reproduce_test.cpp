// `runner reproduce`: a CPU report's embedded config, rerun, gives exactly the same metrics; a
// report that does not match (here: edited) is said to differ, with a non-zero exit code.
#include <gtest/gtest.h>

#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

TEST(Reproduce, ACpuTrainingReportReproducesExactly) {
  TempDir tmp;
  std::string out = " --output " + (tmp / "out").string();
  auto run = run_runner(tiny_config() + " --quiet --set training.epochs=1" + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string report = reported_path(run.output);
  auto again = run_runner("reproduce " + report + " --quiet" + out);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("reproduced: every exact metric matches"), std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("/epochs/0/train_loss"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("/metrics/test_accuracy"), std::string::npos) << again.output;
  EXPECT_EQ(again.output.find("DIFFERS"), std::string::npos) << again.output;

  json edited = read_json(report);
  edited["epochs"][0]["train_loss"] = edited["epochs"][0]["train_loss"].get<double>() + 1e-9;
  auto file = tmp.write("edited.json", edited.dump());
  auto differs = run_runner("reproduce " + file.string() + " --quiet" + out);
  EXPECT_EQ(differs.exit_code, 1) << differs.output;
  EXPECT_NE(differs.output.find("DIFFERS"), std::string::npos) << differs.output;
  EXPECT_NE(differs.output.find("NOT reproduced"), std::string::npos) << differs.output;
}

TEST(Reproduce, ABenchmarkSweepPointReproducesItsLoss) {
  TempDir tmp;
  auto sweep = run_runner("sweep " + tiny_config() +
                          " --quiet --name s --grid training.batch_size=8 --steps 5 --output " +
                          tmp.path().string());
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  auto again = run_runner("reproduce " + (tmp / "s" / "batch_size=8" / "report.json").string() +
                          " --quiet --output " + (tmp / "out").string());
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("/benchmark/mean_loss"), std::string::npos) << again.output;
}

TEST(Reproduce, AReportOfAPointThatNeverRanIsAUserError) {
  TempDir tmp;
  auto file = tmp.write("r.json", R"({"schema_version": 1, "mode": "benchmark", "status": "invalid",
                    "error": "conv2: too small", "name": "n", "run_id": "r",
                    "started_at": "2026-01-01T00:00:00Z", "finished_at": "2026-01-01T00:00:00Z"})");
  auto result = run_runner("reproduce " + file.string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("nothing to reproduce (conv2: too small)"), std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace runner::testing
