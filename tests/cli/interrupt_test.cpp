// Stopping a run with SIGTERM/SIGINT: it ends at the next mini-batch, still writes its report
// (status interrupted) and exits with 130.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace runner::testing {
namespace {

TEST(Interrupt, StopsAtTheNextStepAndWritesAnInterruptedReport) {
  TempDir tmp;
  std::string command = std::string(RUNNER_BINARY) + " " +
                        (source_dir() / "configs" / "tiny_synthetic.yaml").string() +
                        " --quiet --set training.epochs=100000 --output " + tmp.path().string();
  auto result = run_command("(" + command +
                            " & pid=$!; sleep 1.5; kill -TERM $pid; wait $pid; echo exit=$?)");
  EXPECT_NE(result.output.find("exit=130"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("run interrupted: interrupted in epoch"), std::string::npos)
      << result.output;
  auto at = result.output.find("report: ");
  ASSERT_NE(at, std::string::npos) << result.output;
  std::string path = result.output.substr(at + 8, result.output.find('\n', at) - at - 8);
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  auto report = nlohmann::json::parse(in);
  EXPECT_EQ(report["status"], "interrupted");
  EXPECT_TRUE(report.contains("error"));
  EXPECT_FALSE(report.contains("metrics"));
}

}  // namespace
}  // namespace runner::testing
