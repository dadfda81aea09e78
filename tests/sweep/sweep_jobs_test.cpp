// `runner sweep --jobs N` end to end: the same metrics as one point at a time, the thread split,
// exit codes, and Ctrl-C passed on to every running point.
#include <gtest/gtest.h>

#include <thread>

#include "runner/util/files.h"
#include "runner/util/process_stats.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

std::string train_sweep(const std::filesystem::path& output, const std::string& rest) {
  return "sweep " + tiny_config() + " --name s --output " + output.string() +
         " --mode train --set training.epochs=1 --grid training.batch_size=8,16,32,64 " + rest;
}

// What a trained point computed: every epoch's losses and accuracy, the final metrics.
json computed(const json& report) {
  json out = {{"metrics", {report["metrics"]["test_accuracy"], report["metrics"]["test_loss"]}}};
  for (const json& epoch : report["epochs"])
    out["epochs"].push_back({epoch["train_loss"], epoch["test_loss"], epoch["test_accuracy"]});
  return out;
}

TEST(SweepJobs, TwoAtATimeGiveTheSameMetricsAsOneAtATime) {
  TempDir tmp;
  auto one = run_runner(train_sweep(tmp / "one", "--set training.threads=1 -q"));
  ASSERT_EQ(one.exit_code, 0) << one.output;
  auto two = run_runner(train_sweep(tmp / "two", "--set training.threads=1 --jobs 2"));
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_NE(two.output.find("4 completed (4 run now, 0 skipped as done)"), std::string::npos)
      << two.output;
  for (const char* id : {"batch_size=8", "batch_size=16", "batch_size=32", "batch_size=64"}) {
    json a = read_json(tmp / "one" / "s" / id / "report.json");
    json b = read_json(tmp / "two" / "s" / id / "report.json");
    ASSERT_TRUE(a.is_object() && b.is_object()) << id << two.output;
    EXPECT_EQ(b["status"], "completed") << id;
    EXPECT_EQ(computed(a), computed(b)) << id;
    EXPECT_EQ(b["cpu"]["threads"], 1) << id;
    EXPECT_TRUE(std::filesystem::exists(tmp / "two" / "s" / id / "point.log")) << id;
    for (const auto& problem : schema_problems("report.schema.json", b)) ADD_FAILURE() << problem;
  }
  json summary = read_json(tmp / "two" / "s" / "summary.json");
  ASSERT_TRUE(summary.is_object()) << "the parent writes the summary";
  EXPECT_EQ(summary["points"].size(), 4u);
}

TEST(SweepJobs, PointsShareTheCoresUnlessTheConfigSetsThreads) {
  TempDir tmp;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto split = run_runner(train_sweep(tmp / "split", "--jobs 2 -q"));
  ASSERT_EQ(split.exit_code, 0) << split.output;
  json report = read_json(tmp / "split" / "s" / "batch_size=8" / "report.json");
  EXPECT_EQ(report["cpu"]["threads"], std::max(1, cores / 2)) << split.output;
  EXPECT_EQ(report["config"]["training"]["threads"], std::max(1, cores / 2));
  // Resuming with the same --jobs finds every point done.
  auto again = run_runner(train_sweep(tmp / "split", "--jobs 2 --dry-run"));
  EXPECT_EQ(again.output.find("rerun"), std::string::npos) << again.output;

  auto fixed = run_runner(train_sweep(tmp / "fixed", "--jobs 2 --set training.threads=3 -q"));
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  report = read_json(tmp / "fixed" / "s" / "batch_size=8" / "report.json");
  EXPECT_EQ(report["cpu"]["threads"], 3) << "the config's own threads are kept";
}

TEST(SweepJobs, ExitCodesSayWhetherAnyPointCompleted) {
  TempDir tmp;
  std::string base = "sweep " + tiny_config() + " --output " + tmp.path().string() +
                     " --warmup-steps 1 --steps 2 -q ";
  // conv2 sees 4x8x8: kernels of 9 and 11 do not fit.
  for (const char* jobs : {"--jobs 1", "--jobs 2"}) {
    auto invalid =
        run_runner(base + "--name inv --force --grid model.layers[3].kernel=9,11 " + jobs);
    EXPECT_EQ(invalid.exit_code, 2) << jobs << invalid.output;
    EXPECT_NE(invalid.output.find("2 of 2 points did not complete (2 invalid)"), std::string::npos)
        << invalid.output;
  }
  // kernel 3 on cuda: failed where cuda is not usable; kernel 9: invalid.
  auto none = run_runner(base + "--name none --grid model.layers[3].kernel=3,9 --set device=cuda");
  if (none.output.find("1 completed") != std::string::npos) GTEST_SKIP() << "a usable GPU here";
  EXPECT_EQ(none.exit_code, 1) << none.output;
  auto some = run_runner(base + "--name some --grid model.layers[3].kernel=3,9 --jobs 2");
  EXPECT_EQ(some.exit_code, 0) << some.output;
  auto last = some.output.substr(some.output.rfind("sweep some:"));
  EXPECT_NE(last.find("1 of 2 points did not complete (1 invalid)"), std::string::npos) << last;
}

TEST(SweepJobs, APointWhoseProcessDiesIsRecordedAsFailedAndTheOthersGoOn) {
  TempDir tmp;
  auto result = run_command("RUNNER_TEST_KILL_POINT=2 " + std::string(RUNNER_BINARY) + " " +
                            train_sweep(tmp.path(), "--jobs 2 -q"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  json killed = read_json(tmp / "s" / "batch_size=16" / "report.json");
  ASSERT_TRUE(killed.is_object()) << result.output;
  EXPECT_EQ(killed["status"], "failed");
  EXPECT_NE(killed["error"].get<std::string>().find("was ended by signal 9"), std::string::npos)
      << killed["error"];
  for (const auto& problem : schema_problems("report.schema.json", killed))
    ADD_FAILURE() << problem;
  for (const char* id : {"batch_size=8", "batch_size=32", "batch_size=64"})
    EXPECT_EQ(read_json(tmp / "s" / id / "report.json")["status"], "completed") << id;
  EXPECT_NE(result.output.find("1 of 4 points did not complete (1 failed)"), std::string::npos)
      << result.output;
}

TEST(SweepJobs, AJobsCountWhosePointsDoNotFitInMemoryTogetherIsRefused) {
  TempDir tmp;
  // Synthetic 3x16x16 images (769 bytes with the label): each point's data takes 60 % of this
  // machine's memory, so one fits and two do not. Nothing is loaded: the plan refuses first.
  const double physical = static_cast<double>(physical_memory_bytes());
  const auto images = static_cast<std::int64_t>(0.6 * physical / 769);
  if (images > 100'000'000) GTEST_SKIP() << "more memory than a synthetic dataset can fill";
  auto result = run_runner("sweep " + tiny_config() + " --name s --output " + tmp.path().string() +
                           " --set dataset.synthetic.train_count=" + std::to_string(images) +
                           " --grid training.batch_size=8,16 --jobs 2");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--jobs 2: the 2 largest points would run at once"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("--jobs 1 fits"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "s" / "batch_size=8" / "report.json"));
}

TEST(SweepJobs, ABadGpuListIsAUserErrorBeforeAnythingIsWritten) {
  TempDir tmp;
  auto result = run_runner(train_sweep(tmp.path(), "--jobs 2 --gpus 0,x"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--gpus: found '0,x', expected GPU indices"), std::string::npos)
      << result.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "s")) << result.output;
}

TEST(SweepJobs, CtrlCStopsEveryPointAndARerunResumes) {
  TempDir tmp;
  std::string sweep = std::string(RUNNER_BINARY) + " sweep " + tiny_config() +
                      " --name s --output " + tmp.path().string() +
                      " --mode train --grid training.batch_size=4,8,16 --jobs 2";
  // SIGINT to the parent alone once both points print their first line (their runs began).
  const std::string logs = "[ -s " + (tmp / "s" / "batch_size=4" / "point.log").string() +
                           " ] && [ -s " + (tmp / "s" / "batch_size=8" / "point.log").string() +
                           " ]";
  auto result = run_command(
      "(" + sweep + " --set training.epochs=100000 & pid=$!; for i in $(seq 1200); do " + logs +
      " && break; sleep 0.1; done; sleep 0.5; kill -INT $pid; for i in $(seq 300); do kill -0 "
      "$pid 2>/dev/null || break; sleep 0.1; done; kill -KILL $pid 2>/dev/null; wait $pid; "
      "echo exit=$?)");
  EXPECT_NE(result.output.find("exit=130"), std::string::npos) << result.output;
  int interrupted = 0;
  for (const char* id : {"batch_size=4", "batch_size=8"}) {
    json report = read_json(tmp / "s" / id / "report.json");
    ASSERT_TRUE(report.is_object()) << id << result.output;
    interrupted += report["status"] == "interrupted";
  }
  EXPECT_EQ(interrupted, 2) << result.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "s" / "batch_size=16" / "report.json"))
      << "no point starts after Ctrl-C";
  // Issue 24: one Ctrl-C ended the sweep "interrupted while summarising the sweep".
  EXPECT_EQ(result.output.find("interrupted while summarising"), std::string::npos)
      << result.output;
  EXPECT_TRUE(std::filesystem::exists(tmp / "s" / "summary.json"))
      << "the summary of what ran is written after one Ctrl-C\n"
      << result.output;
  auto rerun = run_runner("sweep " + tiny_config() + " --name s --output " + tmp.path().string() +
                          " --mode train --grid training.batch_size=4,8,16 --jobs 2 "
                          "--set training.epochs=100000 --dry-run");
  EXPECT_NE(rerun.output.find("rerun: was interrupted"), std::string::npos) << rerun.output;
}

}  // namespace
}  // namespace runner::testing
