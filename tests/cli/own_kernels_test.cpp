// The oneDNN backend's own 16-channel Winograd kernels (backends/onednn/winograd16.h) as a user
// meets them: the report says whether they were enabled, backend.own_kernels: false turns them
// off, and `runner reproduce` reruns a report with the kernels it was made with (also a report of
// an older runner, whose environment alone says they were off).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.h"

namespace runner::testing {
namespace {

// tiny_resnet_synthetic at width 2: its 3x3 convolutions have 16 channels in and out.
std::string sixteen_channel_run(const TempDir& tmp) {
  return (source_dir() / "configs" / "tiny_resnet_synthetic.yaml").string() +
         " --set model.width=2 --set training.epochs=1 --quiet --output " + (tmp / "out").string();
}

nlohmann::json read_json(const std::string& path) {
  return nlohmann::json::parse(std::ifstream(path));
}

bool cpu_has_avx512() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::stringstream text;
  text << cpuinfo.rdbuf();
  return text.str().find(" avx512f") != std::string::npos;
}

TEST(OwnKernels, TheReportSaysWhetherTheyRan) {
  TempDir tmp;
  auto run = run_runner(sixteen_channel_run(tmp));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = read_json(report_path_in(run.output));
  const std::string own = report["environment"]["own_kernels"];
  EXPECT_EQ(own.rfind(cpu_has_avx512() ? "winograd16" : "none", 0), 0u) << own;
}

TEST(OwnKernels, ARunWithoutThemReproducesWithoutThem) {
  TempDir tmp;
  auto run = run_runner(sixteen_channel_run(tmp) + " --set backend.own_kernels=false");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string report = report_path_in(run.output);
  const auto written = read_json(report);
  EXPECT_EQ(written["environment"]["own_kernels"], "none (backend.own_kernels: false)");
  EXPECT_EQ(written["config"]["backend"]["own_kernels"], false);
  auto again = run_runner("reproduce " + report + " --output " + (tmp / "again").string());
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("reproduced: every exact metric matches"), std::string::npos)
      << again.output;

  // A report of a runner before the option: only its environment says the kernels were off.
  nlohmann::json older = written;
  older["config"]["backend"].erase("own_kernels");
  older["environment"]["own_kernels"] = "none (oneDNN for every layer)";
  const auto older_path = tmp / "older" / "report.json";
  std::filesystem::create_directories(older_path.parent_path());
  std::ofstream(older_path) << older.dump(2);
  auto older_again = run_runner("reproduce " + older_path.string() + " --output " +
                                (tmp / "older_again").string());
  EXPECT_EQ(older_again.exit_code, 0) << older_again.output;
  EXPECT_NE(older_again.output.find("reproduced: every exact metric matches"), std::string::npos)
      << older_again.output;
  const std::string marker = "(rerun report: ";
  const auto at = older_again.output.find(marker);
  ASSERT_NE(at, std::string::npos) << older_again.output;
  const auto start = at + marker.size();
  const auto rerun =
      read_json(older_again.output.substr(start, older_again.output.find(')', start) - start));
  EXPECT_EQ(rerun["config"]["backend"]["own_kernels"], false);
}

}  // namespace
}  // namespace runner::testing
