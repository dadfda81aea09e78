// `runner sweep` end to end on the tiny synthetic config: summaries and plots, points that fail
// while the others complete, a killed sweep that resumes, --fail-fast, and the plan's warnings.
#include <gtest/gtest.h>

#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

std::string sweep_args(const TempDir& tmp, const std::string& rest) {
  return "sweep " + tiny_config() + " --name s --output " + tmp.path().string() +
         " --warmup-steps 2 --steps 8 " + rest;
}

// A command-line grid benchmarks unless --mode says otherwise: training settings that would do
// nothing are named, with the way to train instead (issue 39: they were silently ignored).
TEST(Sweep, ACommandLineGridSaysTrainingSettingsDoNothingInBenchmarkMode) {
  TempDir tmp;
  const std::string grid = "--grid training.batch_size=8,16 --dry-run";
  auto benchmark = run_runner(sweep_args(tmp, grid + " --set training.epochs=3"));
  ASSERT_EQ(benchmark.exit_code, 0) << benchmark.output;
  EXPECT_NE(benchmark.output.find("--set training.epochs=3 has no effect; add --mode train"),
            std::string::npos)
      << benchmark.output;
  auto axis = run_runner(sweep_args(tmp, grid + " --grid training.early_stopping.patience=2,3"));
  EXPECT_NE(axis.output.find("training.early_stopping.patience has no effect"), std::string::npos)
      << axis.output;
  for (const std::string& quiet : {grid + " --set training.epochs=3 --mode train",
                                   grid + " --set training.epochs=3 --mode benchmark",
                                   grid + " --set training.optimizer.lr=0.1"}) {
    auto chosen = run_runner(sweep_args(tmp, quiet));
    EXPECT_EQ(chosen.exit_code, 0) << quiet << chosen.output;
    EXPECT_EQ(chosen.output.find("has no effect"), std::string::npos) << quiet << chosen.output;
  }
}

// A sweep file's set: takes what --set takes, the ~PATH deletion included (issue 39: the schema
// refused it); deleting a field the config lacks is the same error as on the command line.
TEST(Sweep, ASweepFilesSetTakesTheFormsOfSet) {
  TempDir tmp;
  const auto sweep_file = [&](const std::string& set) {
    return tmp.write("s.yaml", "name: s\nbase: " + tiny_config() + "\nset: " + set +
                                   "\nsweep:\n  grid:\n    training.batch_size: [8, 16]\n");
  };
  auto deleted = run_runner(
      "sweep " + sweep_file("[\"~training.log_every\", \"training.epochs=1\"]").string() +
      " --dry-run --output " + tmp.path().string());
  EXPECT_EQ(deleted.exit_code, 0) << deleted.output;
  auto missing = run_runner("sweep " + sweep_file("[\"~checkpoint.path\"]").string() +
                            " --dry-run --output " + tmp.path().string());
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("checkpoint.path: there is no such field to delete"),
            std::string::npos)
      << missing.output;
}

TEST(Sweep, SixPointSyntheticSweepWritesSummariesAndPlotsThatValidate) {
  TempDir tmp;
  auto result =
      run_runner(sweep_args(tmp, "--grid training.batch_size=8,16,32 --grid model.width=0.5,1"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto dir = tmp / "s";
  EXPECT_NE(result.output.find("memory"), std::string::npos) << "the plan is printed first";
  EXPECT_NE(result.output.find("batch_size=32__width=0.5"), std::string::npos);
  json summary = read_json(dir / "summary.json");
  ASSERT_TRUE(summary.is_object()) << result.output;
  for (const auto& problem : schema_problems("summary.schema.json", summary))
    ADD_FAILURE() << problem;
  ASSERT_EQ(summary["points"].size(), 6u);
  for (const json& row : summary["points"]) {
    EXPECT_EQ(row["status"], "completed") << row.dump();
    EXPECT_GT(row["images_per_second"].get<double>(), 0);
    EXPECT_LE(row["step_time_p10_seconds"].get<double>(),
              row["step_time_median_seconds"].get<double>());
    EXPECT_LE(row["step_time_median_seconds"].get<double>(),
              row["step_time_p90_seconds"].get<double>());
    EXPECT_GT(row["achieved_flops_per_second"].get<double>(), 0);
    EXPECT_TRUE(row["speedup_over_cpu"].is_null()) << "no GPU point, no speedup";
    json report = read_json(row["report"].get<std::string>());
    for (const auto& problem : schema_problems("report.schema.json", report))
      ADD_FAILURE() << problem;
  }
  EXPECT_EQ(summary["points"][2]["batch_size"], 16);
  EXPECT_EQ(summary["points"][2]["width"], 0.5);
  EXPECT_GT(summary["points"][1]["flops_per_image"].get<double>(),
            summary["points"][0]["flops_per_image"].get<double>());
  std::string csv = read_file(dir / "summary.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
  EXPECT_NE(
      read_file(dir / "summary.md").find("| batch_size=8__width=1 | cpu | 8 | 1 | completed |"),
      std::string::npos);
  if (!has_matplotlib()) GTEST_SKIP() << "/usr/bin/python3 has no matplotlib: plots not checked";
  for (const char* plot : {"throughput", "utilisation"}) {
    for (const char* ext : {".png", ".svg"}) {
      auto file = dir / "plots" / (std::string(plot) + ext);
      EXPECT_TRUE(std::filesystem::exists(file) && std::filesystem::file_size(file) > 1000) << file;
    }
  }
  // A CPU benchmark sweep has no speedup, accuracy or curves: those plots are left out, not drawn
  // empty, and the script says so.
  for (const char* plot : {"speedup", "accuracy", "loss_epochs", "loss_steps", "accuracy_epochs"}) {
    EXPECT_FALSE(std::filesystem::exists(dir / "plots" / (std::string(plot) + ".svg"))) << plot;
  }
}

// Points run one after another in one process: each reports its own peak resident memory, not
// the largest so far (the allocator keeps freed memory resident unless asked to hand it back).
TEST(Sweep, EachPointInOneProcessReportsItsOwnPeakMemory) {
  if (kAddressSanitizer)
    GTEST_SKIP() << "AddressSanitizer's allocator keeps freed memory (quarantine)";
  TempDir tmp;
  const auto config = source_dir() / "configs" / "bench" / "resnet18_cifar_synthetic.yaml";
  auto result =
      run_command("RUNNER_PYTHON=/nonexistent/python3 " + std::string(RUNNER_BINARY) + " sweep " +
                  config.string() + " --name s --output " + tmp.path().string() +
                  " --zip training.batch_size=128,2 --set model.width=0.25"
                  " --set dataset.workers=0 --mode benchmark --warmup-steps 1"
                  " --steps 1 --quiet");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  json rows = read_json(tmp / "s" / "summary.json")["points"];
  ASSERT_EQ(rows.size(), 2u);
  const double large = rows[0]["peak_memory_bytes"].get<double>();
  const double small = rows[1]["peak_memory_bytes"].get<double>();
  EXPECT_LT(small, 0.8 * large) << "batch 2 after batch 128: " << small << " against " << large;
}

TEST(Sweep, FailingPointsAreRecordedAndTheOthersComplete) {
  TempDir tmp;
  // conv2 sees 4x8x8: a 9x9 kernel does not fit (invalid); this runner has no usable GPU (failed).
  auto result =
      run_runner(sweep_args(tmp, "--grid model.layers[3].kernel=3,9 --grid device=cpu,cuda"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  json rows = read_json(tmp / "s" / "summary.json")["points"];
  ASSERT_EQ(rows.size(), 4u) << result.output;
  EXPECT_EQ(rows[0]["id"], "kernel=3__device=cpu");
  EXPECT_EQ(rows[0]["status"], "completed");
  if (rows[1]["status"] == "completed") {  // a runner with the GPU backend, on a GPU machine
    EXPECT_TRUE(rows[1]["speedup_over_cpu"].is_number());
  } else {
    EXPECT_EQ(rows[1]["status"], "failed");
    EXPECT_NE(rows[1]["error"].get<std::string>().find("cuda"), std::string::npos) << rows[1];
  }
  for (int i : {2, 3}) {
    EXPECT_EQ(rows[i]["status"], "invalid") << rows[i];
    EXPECT_NE(rows[i]["error"].get<std::string>().find("conv2"), std::string::npos) << rows[i];
    json report = read_json(rows[i]["report"].get<std::string>());
    for (const auto& problem : schema_problems("report.schema.json", report))
      ADD_FAILURE() << problem;
    EXPECT_EQ(report["config"]["model"]["layers"][3]["kernel"], 9);
  }
  // The same reason for two points is said once, naming both.
  EXPECT_NE(
      result.output.find("warning: 2 points (3, 4: kernel=9__device=cpu, kernel=9__device=cuda) "
                         "are invalid"),
      std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("[4/4] kernel=9__device=cuda: invalid: the same error as in the "
                               "plan's warnings above"),
            std::string::npos)
      << result.output;
}

TEST(Sweep, FailFastStopsAtTheFirstPointThatDoesNotComplete) {
  TempDir tmp;
  auto result = run_runner(sweep_args(tmp, "--grid model.layers[3].kernel=9,3 --fail-fast"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_TRUE(std::filesystem::exists(tmp / "s" / "kernel=9" / "report.json"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "s" / "kernel=3" / "report.json"));
  EXPECT_NE(result.output.find("--fail-fast"), std::string::npos) << result.output;
}

TEST(Sweep, AKilledSweepResumesAndSkipsTheCompletedPoints) {
  TempDir tmp;
  std::string args = sweep_args(tmp, "--grid training.batch_size=8,16,32,64 --quiet");
  auto killed =
      run_command("RUNNER_TEST_KILL_AFTER_POINTS=2 " + std::string(RUNNER_BINARY) + " " + args);
  ASSERT_NE(killed.exit_code, 0) << killed.output;
  auto dir = tmp / "s";
  ASSERT_TRUE(std::filesystem::exists(dir / "batch_size=16" / "report.json")) << killed.output;
  ASSERT_FALSE(std::filesystem::exists(dir / "batch_size=32" / "report.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "summary.json")) << "killed before the summary";
  std::string first = read_file(dir / "batch_size=8" / "report.json");

  auto resumed = run_runner(args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("4 completed (2 run now, 2 skipped as done)"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(read_file(dir / "batch_size=8" / "report.json"), first)
      << "a completed point ran again";
  json rows = read_json(dir / "summary.json")["points"];
  ASSERT_EQ(rows.size(), 4u);
  for (const json& row : rows) EXPECT_EQ(row["status"], "completed");

  auto again = run_runner(sweep_args(tmp, "--grid training.batch_size=8,16,32,64 --dry-run"));
  EXPECT_NE(again.output.find("done: skipped"), std::string::npos) << again.output;
  auto forced = run_runner(args + " --force");
  EXPECT_NE(forced.output.find("(4 run now, 0 skipped as done)"), std::string::npos)
      << forced.output;
  EXPECT_NE(read_file(dir / "batch_size=8" / "report.json"), first);
}

TEST(Sweep, APointWithOtherSettingsIsNotTakenAsDone) {
  TempDir tmp;
  ASSERT_EQ(run_runner(sweep_args(tmp, "--grid training.batch_size=8 -q")).exit_code, 0);
  auto changed = run_runner(
      sweep_args(tmp, "--grid training.batch_size=8 --set training.optimizer.lr=0.5 --dry-run"));
  EXPECT_NE(changed.output.find("rerun: config or settings changed"), std::string::npos)
      << changed.output;
}

TEST(Sweep, ThePlanWarnsOfPointsThatWillNotFitAndDryRunRunsNothing) {
  TempDir tmp;
  auto result = run_runner(
      sweep_args(tmp, "--grid training.batch_size=16,1000000 --set model.width=16 --dry-run"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("warning: point 2 (batch_size=1000000) needs about"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("warning: point 1 "), std::string::npos) << result.output;
  EXPECT_TRUE(std::filesystem::exists(tmp / "s" / "sweep.json"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "s" / "batch_size=16"));
}

TEST(Sweep, ASweepFileWithAnEmbeddedConfigRunsInTrainMode) {
  TempDir tmp;
  auto file = tmp.write("w.yaml", embedded_config_sweep());
  auto result = run_runner("sweep " + file.string() + " --quiet --output " + tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  json rows = read_json(tmp / "w" / "summary.json")["points"];
  ASSERT_EQ(rows.size(), 2u);
  for (const json& row : rows) {
    EXPECT_EQ(row["mode"], "train");
    EXPECT_GT(row["test_accuracy"].get<double>(), 0.1) << row;
  }
  EXPECT_TRUE(std::filesystem::exists(tmp / "w" / "base_config.yaml"));
}

TEST(Sweep, UserMistakesExitWithCode2) {
  TempDir tmp;
  auto no_axes = run_runner("sweep " + tiny_config() + " --output " + tmp.path().string());
  EXPECT_EQ(no_axes.exit_code, 2) << no_axes.output;
  EXPECT_NE(no_axes.output.find("the sweep varies nothing"), std::string::npos) << no_axes.output;
  auto bad_zip = run_runner(sweep_args(tmp, "--zip training.batch_size=8,16 --zip model.width=1"));
  EXPECT_EQ(bad_zip.exit_code, 2) << bad_zip.output;
  auto bad_name = run_runner("sweep " + tiny_config() + " --grid seed=1 --name ../x --dry-run");
  EXPECT_EQ(bad_name.exit_code, 2) << bad_name.output;
  EXPECT_NE(bad_name.output.find("--name: found '../x'"), std::string::npos) << bad_name.output;
  auto bad_report = run_runner("report " + (tmp / "nothing").string());
  EXPECT_EQ(bad_report.exit_code, 2) << bad_report.output;
}

TEST(Report, SummarisesAFolderOfRunsAndSaysWhyPlotsAreSkipped) {
  TempDir tmp;
  ASSERT_EQ(
      run_runner(tiny_config() + " --quiet --set training.epochs=1 --output " + tmp.path().string())
          .exit_code,
      0);
  // --html: a folder of runs (no sweep.json) gets its summary files and plots when asked.
  auto result = run_command("RUNNER_PYTHON=/nonexistent/python3 " + std::string(RUNNER_BINARY) +
                            " report --html " + tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("plots skipped: /nonexistent/python3 not found"), std::string::npos)
      << result.output;
  json summary = read_json(tmp / "summary.json");
  ASSERT_EQ(summary["points"].size(), 1u);
  EXPECT_EQ(summary["points"][0]["mode"], "train");
  EXPECT_GT(summary["points"][0]["test_accuracy"].get<double>(), 0.1);
  for (const auto& problem : schema_problems("summary.schema.json", summary))
    ADD_FAILURE() << problem;
}

// A Python without matplotlib (here Debian's, its site packages left out): the plot script says
// so in the runner's words and exits 77, which is a skip, not a failure.
TEST(Report, APythonWithoutMatplotlibSkipsThePlotsWithOneLine) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  TempDir tmp;
  ASSERT_EQ(
      run_runner(tiny_config() + " --quiet --set training.epochs=1 --output " + tmp.path().string())
          .exit_code,
      0);
  auto python = tmp.write("python3", "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n");
  std::filesystem::permissions(python, std::filesystem::perms::owner_all);
  auto result = run_command("RUNNER_PYTHON=" + python.string() + " " + std::string(RUNNER_BINARY) +
                            " report --html " + tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("plots skipped: /usr/bin/python3 has no matplotlib (Debian: apt "
                               "install python3-matplotlib)"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("Traceback"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "plots")) << result.output;
  EXPECT_TRUE(std::filesystem::exists(tmp / "summary.json"));
}

TEST(Scripts, SweepBatchSizeRunsASweepOverTheGivenSizes) {
  TempDir tmp;
  auto result =
      run_command("RUNNER=" + std::string(RUNNER_BINARY) + " " +
                  (source_dir() / "scripts" / "sweep_batch_size.sh").string() + " " +
                  tiny_config() + " 8 16 -- --quiet --steps 4 --output " + tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  json rows = read_json(tmp / "tiny_synthetic-batch_size" / "summary.json")["points"];
  ASSERT_EQ(rows.size(), 2u) << result.output;
  EXPECT_EQ(rows[1]["batch_size"], 16);
  EXPECT_EQ(run_command((source_dir() / "scripts" / "sweep_batch_size.sh").string() + " " +
                        tiny_config() + " x")
                .exit_code,
            2);
}

}  // namespace
}  // namespace runner::testing
