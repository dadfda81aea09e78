// `runner sweep --launcher slurm` without a cluster: the dry run's script, the tasks' command
// planning the same points, mistakes in the Slurm options, and a machine without Slurm.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

std::string slurm_sweep(const TempDir& tmp, const std::string& rest) {
  return "sweep " + tiny_config() + " --name s --output " + quoted(tmp / "out") +
         " --grid training.batch_size=8,16,32 --steps 4 --warmup-steps 1 --launcher slurm " + rest;
}

// The line of `output` that starts with `prefix`, or "".
std::string line_starting(const std::string& output, const std::string& prefix) {
  auto at = output.find("\n" + prefix);
  if (at == std::string::npos) return "";
  auto end = output.find('\n', at + 1);
  return output.substr(at + 1, end - at - 1);
}

// The plan table's rows: "  1  batch_size=8  cpu ...".
std::vector<std::string> plan_rows(const std::string& output) {
  static const std::regex row(R"(^ +[0-9]+  batch_size=.*$)");
  std::vector<std::string> rows;
  std::stringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, row)) rows.push_back(line);
  }
  return rows;
}

TEST(SlurmSubmit, DryRunPrintsTheScriptAndWritesNothing) {
  TempDir tmp;
  auto result = run_runner(slurm_sweep(
      tmp,
      "--dry-run --partition cpu --time 10 --cpus-per-task 2 --mem 2G --gpus-per-task 1 "
      "--max-parallel 2 --sbatch-option=--exclusive"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* line : {"#SBATCH --array=1-3%2", "#SBATCH --partition=\"cpu\"",
                           "#SBATCH --time=10", "#SBATCH --cpus-per-task=2", "#SBATCH --mem=2G",
                           "#SBATCH --gres=gpu:1", "#SBATCH --exclusive"}) {
    EXPECT_NE(result.output.find(std::string("\n") + line + "\n"), std::string::npos)
        << line << " missing from\n"
        << result.output;
  }
  std::string exec = line_starting(result.output, "exec ");
  EXPECT_NE(exec.find(RUNNER_BINARY), std::string::npos) << "the absolute runner: " << exec;
  EXPECT_NE(exec.find("--point \"$SLURM_ARRAY_TASK_ID\""), std::string::npos) << exec;
  EXPECT_FALSE(std::filesystem::exists(tmp / "out")) << "a dry run writes nothing";
}

// The script's command, run as task 2 would be, runs point 2 here and submits nothing.
TEST(SlurmSubmit, TheTaskCommandRunsItsPointHere) {
  TempDir tmp;
  auto submitter = run_runner(slurm_sweep(tmp, "--dry-run --set training.threads=1"));
  ASSERT_EQ(submitter.exit_code, 0) << submitter.output;
  std::vector<std::string> rows = plan_rows(submitter.output);
  ASSERT_EQ(rows.size(), 3u) << submitter.output;
  std::string exec = line_starting(submitter.output, "exec ");
  EXPECT_EQ(exec.find("--dry-run"), std::string::npos) << "the script as submitted: " << exec;
  auto script = tmp.write("task.sh", "set -eu\n" + exec + "\n");
  auto task = run_command("cd " + quoted(std::filesystem::current_path()) +
                          " && SLURM_ARRAY_TASK_ID=2 bash " + quoted(script));
  ASSERT_EQ(task.exit_code, 0) << task.output;
  json report = read_json(tmp / "out" / "s" / "batch_size=16" / "report.json");
  EXPECT_EQ(report.value("status", ""), "completed") << task.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "out" / "s" / "batch_size=8"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "out" / "s" / "slurm")) << "nothing submitted";
}

TEST(SlurmSubmit, BadSlurmOptionsAreRefusedBeforeAnythingIsSubmitted) {
  TempDir tmp;
  struct Case {
    std::string options, expected;
  } cases[] = {
      {"--time '2 hours'", "--time: found '2 hours', expected a Slurm time limit"},
      {"--mem lots", "--mem: found 'lots'"},
      {"--max-parallel 0", "--max-parallel"},
      {"--partition 'a b'", "expected a Slurm name"},
      {"--launcher pbs", "--launcher"},
  };
  for (const Case& c : cases) {
    auto result = run_runner(slurm_sweep(tmp, c.options));
    EXPECT_EQ(result.exit_code, 2) << c.options << "\n" << result.output;
    EXPECT_NE(result.output.find(c.expected), std::string::npos) << result.output;
  }
  EXPECT_FALSE(std::filesystem::exists(tmp / "out" / "s" / "slurm" / "job.json"));
}

TEST(SlurmSubmit, WithoutSlurmItSaysWhatIsMissing) {
  TempDir tmp;
  auto result = run_command("env PATH=/nonexistent " + std::string(RUNNER_BINARY) + " " +
                            slurm_sweep(tmp, ""));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("sbatch: not found on PATH"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("slurm_local_cluster.sh"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "out" / "s" / "slurm" / "submit.sh"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "out" / "s" / "slurm" / "job.json"));

  // Without a Slurm job, status follows the folder as a sweep run here: nothing has run.
  auto status = run_runner("sweep status " + quoted(tmp / "out" / "s"));
  EXPECT_NE(status.output.find("not_run; no sweep runs into this folder now"), std::string::npos)
      << status.output;
}

}  // namespace
}  // namespace runner::testing
