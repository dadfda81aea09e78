// The live report: a training run rewrites report.json (and its page) after every epoch with
// status running, so it can be watched; killed outright (SIGKILL, no chance to write its last
// report), it leaves that record, which `runner report` and `runner runs` read; a run that ends
// replaces it with its final report.
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

}  // namespace
}  // namespace runner::testing
