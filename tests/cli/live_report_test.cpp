// The live report: a training run rewrites report.json (and its page) after every epoch with
// status running, so it can be watched; killed outright (SIGKILL, no chance to write its last
// report), it leaves that record, which `runner report` and `runner runs` read; a run that ends
// replaces it with its final report. Interrupted and resumed in its own folder, a run keeps one
// history, the uninterrupted run's.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "test_support.h"

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The one report.json below `folder` (empty when there is none).
fs::path report_below(const fs::path& folder) {
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (entry.path().filename() == "report.json") return entry.path();
  }
  return {};
}

TEST(LiveReport, ARunKilledMidwayLeavesARunningRecordToWatch) {
  TempDir tmp;
  const std::string run = std::string(RUNNER_BINARY) + " " +
                          (source_dir() / "configs" / "tiny_synthetic.yaml").string() +
                          " --quiet --html --set training.epochs=100000 --output " +
                          tmp.path().string();
  // Started in the background; killed (no signal handler runs) once a report says running after
  // at least two epochs.
  const CommandResult killed = run_command(
      "(" + run + " & pid=$!; for i in $(seq 300); do sleep 0.1; " +
      "if grep -Eqs '\"epochs_done\": *([2-9]|[1-9][0-9]+)' $(find " + tmp.path().string() +
      " -name report.json) /dev/null; then break; fi; done; kill -KILL $pid; wait $pid; echo "
      "exit=$?)");
  EXPECT_NE(killed.output.find("exit=137"), std::string::npos) << killed.output;
  const fs::path report_file = report_below(tmp.path());
  ASSERT_FALSE(report_file.empty()) << "no live report was written";
  const nlohmann::json report = nlohmann::json::parse(read_text(report_file));
  EXPECT_EQ(report["status"], "running");
  const nlohmann::json& progress = report["progress"];
  const int done = progress["epochs_done"];
  EXPECT_GE(done, 2);
  EXPECT_EQ(progress["epochs_planned"], 100000);
  EXPECT_EQ(report["epochs"].size(), static_cast<std::size_t>(done));
  EXPECT_GT(progress["seconds_left"].get<double>(), 0.0);
  EXPECT_GT(progress["elapsed_seconds"].get<double>(), 0.0);
  EXPECT_FALSE(report.contains("metrics")) << "the kept model is measured at the end only";
  for (const auto& v : schema_violations(load_schema("report.schema.json"), report))
    ADD_FAILURE() << v.description;

  // Its page says where the run is and reloads itself.
  const std::string page = read_text(report_file.parent_path() / "report.html");
  EXPECT_NE(page.find("http-equiv=\"refresh\""), std::string::npos);
  EXPECT_NE(page.find("running"), std::string::npos);
  EXPECT_NE(page.find("of 100000"), std::string::npos);

  // The readers take it as a run that is not finished.
  const CommandResult runs = run_runner("runs --no-cache --format csv " + tmp.path().string());
  EXPECT_EQ(runs.exit_code, 0) << runs.output;
  EXPECT_NE(runs.output.find("running"), std::string::npos) << runs.output;
  const CommandResult curves = run_runner("report " + report_file.parent_path().string());
  EXPECT_EQ(curves.exit_code, 0) << curves.output;
  EXPECT_NE(curves.output.find("running (epoch " + std::to_string(done)), std::string::npos)
      << curves.output;
}

TEST(LiveReport, ARunThatEndsReplacesItWithItsFinalReportAndAStillPage) {
  TempDir tmp;
  const CommandResult result =
      run_runner((source_dir() / "configs" / "tiny_synthetic.yaml").string() +
                 " --quiet --html --set training.epochs=2 --output " + tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const fs::path report_file = report_below(tmp.path());
  const nlohmann::json report = nlohmann::json::parse(read_text(report_file));
  EXPECT_EQ(report["status"], "completed");
  EXPECT_FALSE(report.contains("progress"));
  EXPECT_EQ(read_text(report_file.parent_path() / "report.html").find("http-equiv=\"refresh\""),
            std::string::npos);
}

// The whole story: a run is watched while it trains (its live report and page after
// the first epochs), a second start into its folder is refused while it runs, Ctrl-C, `--resume`
// without --output goes on in the same folder, and the record there equals an uninterrupted
// run's epoch for epoch, with both stretches in `segments`.
TEST(LiveReport, AnInterruptedRunResumedInItsFolderHasTheUninterruptedHistory) {
  TempDir tmp;
  // Fixed threads: a default run fits them to the machine's load, and the last bits follow them.
  const std::string runner = "OMP_NUM_THREADS=2 " + std::string(RUNNER_BINARY) + " " +
                             (source_dir() / "configs" / "tiny_synthetic.yaml").string() +
                             " --quiet --html --set checkpoint.path=c.safetensors"
                             " --set dataset.synthetic.train_count=2048";
  const std::string a = (tmp / "a").string(), live = (tmp / "live").string();
  const CommandResult first = run_command(
      "(cd " + tmp.path().string() + " && " + runner + " --set training.epochs=100000 --output " +
      a + " & pid=$!; for i in $(seq 300); do sleep 0.1; r=$(find " + a +
      " -name report.json); if grep -Eqs '\"epochs_done\": *([2-9]|[1-9][0-9]+)' $r /dev/null; "
      "then break; fi; done; mkdir " +
      live +
      "; cp $(dirname $r)/report.json $(dirname "
      "$r)/report.html " +
      live + "; " + runner + " --set training.epochs=100000 --resume " +
      "$(dirname $r)/c.safetensors; echo refused=$?; kill -INT $pid; wait $pid; echo exit=$?)");
  ASSERT_NE(first.output.find("exit=130"), std::string::npos) << first.output;
  // Watched: running, with its progress, on a page that reloads itself.
  const nlohmann::json watched = nlohmann::json::parse(read_text(tmp / "live" / "report.json"));
  EXPECT_EQ(watched["status"], "running");
  EXPECT_GE(watched["progress"]["epochs_done"].get<int>(), 2);
  EXPECT_NE(read_text(tmp / "live" / "report.html").find("http-equiv=\"refresh\""),
            std::string::npos);
  // A second start into the folder of a run still training is refused, naming it.
  EXPECT_NE(first.output.find("refused=2"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("another run (process "), std::string::npos) << first.output;

  const fs::path report_file = report_below(tmp / "a");
  const nlohmann::json interrupted = nlohmann::json::parse(read_text(report_file));
  ASSERT_EQ(interrupted["status"], "interrupted");
  const int done = interrupted["checkpoint"]["epochs_done"];
  const std::string epochs = " --set training.epochs=" + std::to_string(done + 2);
  // The printed command goes on in place: no --output in it.
  EXPECT_NE(first.output.find("--quiet --resume " +
                              (report_file.parent_path() / "c.safetensors").string()),
            std::string::npos)
      << first.output;
  const CommandResult resumed =
      run_command("cd " + tmp.path().string() + " && " + runner + epochs + " --resume " +
                  (report_file.parent_path() / "c.safetensors").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_FALSE(fs::exists(tmp / "results")) << "the resumed run went to a new folder";
  const CommandResult straight = run_command(runner + epochs + " --output " + (tmp / "b").string());
  ASSERT_EQ(straight.exit_code, 0) << straight.output;

  const nlohmann::json one = nlohmann::json::parse(read_text(report_file));
  const nlohmann::json uninterrupted = nlohmann::json::parse(read_text(report_below(tmp / "b")));
  EXPECT_EQ(one["status"], "completed");
  ASSERT_EQ(one["epochs"].size(), static_cast<std::size_t>(done + 2));
  for (std::size_t e = 0; e < one["epochs"].size(); ++e) {
    for (const char* key : {"epoch", "train_loss", "test_loss", "test_accuracy", "learning_rate"})
      EXPECT_EQ(one["epochs"][e][key], uninterrupted["epochs"][e][key]) << key << " " << e;
  }
  EXPECT_EQ(one["curves"]["train"], uninterrupted["curves"]["train"]);
  EXPECT_EQ(one["curves"]["test"], uninterrupted["curves"]["test"]);
  EXPECT_EQ(one["metrics"], uninterrupted["metrics"]);
  EXPECT_EQ(one["started_at"], interrupted["started_at"]) << "the run started when it first did";
  const nlohmann::json& segments = one["segments"];
  ASSERT_EQ(segments.size(), 2u);
  EXPECT_EQ(segments[0]["ended"], "interrupted");
  EXPECT_EQ(segments[0]["epochs_done"], done);
  EXPECT_EQ(segments[1]["ended"], "completed");
  EXPECT_EQ(segments[1]["first_epoch"], done);
  EXPECT_EQ(segments[1]["epochs_done"], done + 2);
  for (const auto& v : schema_violations(load_schema("report.schema.json"), one))
    ADD_FAILURE() << v.description;
  EXPECT_NE(read_text(report_file.parent_path() / "report.html").find("ran in epochs 1-"),
            std::string::npos);
  // Rerun from scratch, the one history reproduces.
  const CommandResult again =
      run_runner("reproduce " + report_file.string() + " --output " + (tmp / "r").string());
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("reproduced: every exact metric matches"), std::string::npos)
      << again.output;
}

}  // namespace
}  // namespace runner::testing
