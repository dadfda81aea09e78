// `runner reproduce`: a CPU report's embedded config, rerun, gives exactly the same metrics; a
// report that does not match (here: edited) is said to differ, with a non-zero exit code.
#include <gtest/gtest.h>

#include "runner/util/files.h"
#include "runner/util/threads.h"
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

// `runner reproduce REPORT`, which must say every exact metric matches; the rerun's report.
json reproduced(const std::string& report, const std::string& output_option) {
  auto again = run_runner("reproduce " + report + " --quiet" + output_option);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("reproduced: every exact metric matches"), std::string::npos)
      << again.output;
  std::string rerun_path = reported_path(again.output);  // "... (rerun report: PATH)"
  if (!rerun_path.empty() && rerun_path.back() == ')') rerun_path.pop_back();
  return read_json(rerun_path);
}

// A default run fits its threads to the cores the machine gives it: with every core busy it
// computes with one thread. Rerun on the idle machine, `reproduce` makes the same changes at the
// same steps, and the numbers match to the last bit.
TEST(Reproduce, ARunWhoseThreadsFollowedABusyMachineReproducesOnAnIdleOne) {
  if (available_cores() < 2) GTEST_SKIP() << "one core: the threads cannot change";
  TempDir tmp;
  std::string out = " --output " + (tmp / "out").string();
  // One busy loop per core, stopped by their pids (dash's `jobs` lists none in a subshell).
  const std::string busy = "pids=; for i in $(seq " + std::to_string(available_cores()) +
                           "); do timeout 120 sh -c 'while :; do :; done' >/dev/null 2>&1 & "
                           "pids=\"$pids $!\"; done; ";
  auto run =
      run_command("(" + busy + "env -u OMP_NUM_THREADS " + RUNNER_BINARY + " " + tiny_config() +
                  " --quiet --set dataset.synthetic.train_count=4096 --set "
                  "training.epochs=2" +
                  out + "; status=$?; kill $pids; exit $status)");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string report = reported_path(run.output);
  const json original = read_json(report);
  EXPECT_EQ(original["cpu"]["threads_policy"], "fitted");
  const json changes = original["cpu"]["thread_changes"];
  // Windows of a quarter second: the run lasts several.
  ASSERT_FALSE(changes.empty()) << "the busy machine left the threads as they were: "
                                << original["cpu"].dump();
  EXPECT_EQ(changes[0]["threads"], 1);

  const json rerun = reproduced(report, out);
  EXPECT_EQ(rerun["cpu"]["threads_policy"], "replayed");
  ASSERT_EQ(rerun["cpu"]["thread_changes"].size(), changes.size());
  for (std::size_t i = 0; i < changes.size(); ++i) {
    EXPECT_EQ(rerun["cpu"]["thread_changes"][i]["step"], changes[i]["step"]);
    EXPECT_EQ(rerun["cpu"]["thread_changes"][i]["threads"], changes[i]["threads"]);
  }
}

// `precision: fastest` times the precisions this machine runs natively and trains in the fastest;
// `reproduce` trains in the recorded choice without timing again (a timing here might choose
// otherwise, and the numbers would differ).
TEST(Reproduce, AFastestPrecisionRunRecordsItsChoiceAndTheRerunKeepsIt) {
  TempDir tmp;
  std::string out = " --output " + (tmp / "out").string();
  auto run = run_runner(tiny_config() +
                        " --set training.epochs=1 --set training.precision=fastest "
                        "--set training.threads=2" +
                        out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("precision: fastest -> "), std::string::npos) << run.output;
  std::string report = reported_path(run.output);
  const json original = read_json(report);
  EXPECT_EQ(original["config"]["training"]["precision"], "fastest");
  const json choice = original["precision_choice"];
  ASSERT_TRUE(choice.is_object()) << original.dump();
  EXPECT_EQ(choice["replayed"], false);
  EXPECT_TRUE(choice["step_seconds"].contains("fp32")) << choice.dump();
  EXPECT_TRUE(choice["step_seconds"].contains(choice["chosen"].get<std::string>()));
  EXPECT_EQ(original["environment"]["precision"], choice["chosen"]);

  const json rerun = reproduced(report, out);
  EXPECT_EQ(rerun["precision_choice"]["replayed"], true) << rerun.dump();
  EXPECT_EQ(rerun["precision_choice"]["chosen"], choice["chosen"]);
  EXPECT_FALSE(rerun["precision_choice"].contains("step_seconds"));
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
