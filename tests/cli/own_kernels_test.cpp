// The oneDNN backend's own 16-channel Winograd kernels (backends/onednn/winograd16.h) as a user
// meets them: the report says whether they were enabled, RUNNER_OWN_KERNELS=0 turns them off,
// and `runner reproduce` reruns a report with the kernels it was made with.
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
  auto run = run_command(std::string("RUNNER_OWN_KERNELS=0 ") + RUNNER_BINARY + " " +
                         sixteen_channel_run(tmp));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string report = report_path_in(run.output);
  EXPECT_EQ(read_json(report)["environment"]["own_kernels"].get<std::string>().rfind("none", 0),
            0u);
  // No RUNNER_OWN_KERNELS here: reproduce reads it from the report.
  auto again = run_runner("reproduce " + report + " --output " + (tmp / "again").string());
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("reproduced: every exact metric matches"), std::string::npos)
      << again.output;
}

}  // namespace
}  // namespace runner::testing
