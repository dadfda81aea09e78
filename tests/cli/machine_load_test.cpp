// The machine's load in every report (run, bench, sweep point) and the "machine is busy" warning.
#include "runner/report/machine_load.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "test_support.h"

namespace runner::testing {
namespace {

nlohmann::json report_named_by(const std::string& output) {
  auto at = output.rfind("report: ");
  if (at == std::string::npos) return nullptr;
  std::string path = output.substr(at + 8);
  std::ifstream in(path.substr(0, path.find('\n')));
  return in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json();
}

void expect_machine_load(const nlohmann::json& report, const std::string& output) {
  ASSERT_TRUE(report.is_object()) << output;
  ASSERT_TRUE(report.contains("machine_load")) << report.dump().substr(0, 400);
  const nlohmann::json& load = report["machine_load"];
  EXPECT_EQ(load["cores"], static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  EXPECT_GE(load["load_average_start"].get<double>(), 0);
  EXPECT_GE(load["load_average_end"].get<double>(), 0);
  const bool busy = load["load_average_start"].get<double>() > load["cores"].get<double>();
  // Said when the run started on a busy machine (the load is read again for the report, so
  // only the warning's presence is compared with the recorded start).
  if (busy) EXPECT_NE(output.find("the machine is busy"), std::string::npos) << output;
}

TEST(MachineLoad, RunAndBenchReportsRecordIt) {
  TempDir tmp;
  const std::string config = (source_dir() / "configs" / "tiny_synthetic.yaml").string();
  auto run = run_runner(config + " --set training.epochs=1 -q --output " + tmp.path().string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  expect_machine_load(report_named_by(run.output), run.output);
  auto bench = run_runner("bench " + config + " --warmup-steps 1 --steps 2 --profile-steps 1 -q " +
                          "--output " + tmp.path().string());
  ASSERT_EQ(bench.exit_code, 0) << bench.output;
  expect_machine_load(report_named_by(bench.output), bench.output);
}

TEST(MachineLoad, BusyMeansMoreLoadThanCores) {
  EXPECT_FALSE(machine_is_busy(2.0, 2));
  EXPECT_TRUE(machine_is_busy(2.1, 2));
  EXPECT_EQ(busy_warning(1.0, 4), "");
  std::string text = busy_warning(6.1, 2);
  EXPECT_NE(text.find("the machine is busy (load average 6.1 on 2 cores)"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace runner::testing
