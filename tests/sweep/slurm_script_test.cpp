// The Slurm batch script of a sweep: array ranges and throttle, resources, extra options, and
// paths and arguments with spaces and quotes surviving bash and sbatch's own quoting.
#include "runner/sweep/slurm_script.h"

#include <gtest/gtest.h>

#include "runner/util/command_line.h"
#include "test_support.h"

namespace runner::testing {
namespace {

SlurmJob job_with(SlurmSettings settings, std::vector<int> points = {1, 2, 3}) {
  return {"runner-s",           "/work dir",
          "/results/s w/slurm", {"/bin/runner", "sweep", "/a b/s.yaml"},
          std::move(points),    std::move(settings)};
}

bool has_line(const std::string& script, const std::string& line) {
  return script.find("\n" + line + "\n") != std::string::npos;
}

TEST(SlurmScript, ArraySpecJoinsRunsOfPointsAndAddsTheThrottle) {
  EXPECT_EQ(array_spec({1, 2, 3, 5, 7, 8, 9}, 0), "1-3,5,7-9");
  EXPECT_EQ(array_spec({4}, 0), "4");
  EXPECT_EQ(array_spec({2, 4, 6}, 2), "2,4,6%2");
  EXPECT_EQ(array_spec({1, 2, 10, 11, 12}, 3), "1-2,10-12%3");
}

TEST(SlurmScript, ResourcesBecomeSbatchLines) {
  SlurmSettings s;
  s.partition = "gpu";
  s.time = "2:00:00";
  s.cpus_per_task = 4;
  s.mem = "16G";
  s.gpus_per_task = 2;
  s.account = "proj1";
  s.qos = "high";
  s.max_parallel = 5;
  s.extra = {"--constraint=a100", "--exclusive"};
  std::string script = batch_script(job_with(s, {1, 2, 3, 6}));
  EXPECT_TRUE(script.starts_with("#!/bin/bash\n")) << script;
  for (const char* line :
       {"#SBATCH --array=1-3,6%5", "#SBATCH --partition=\"gpu\"", "#SBATCH --time=2:00:00",
        "#SBATCH --cpus-per-task=4", "#SBATCH --mem=16G", "#SBATCH --gres=gpu:2",
        "#SBATCH --account=\"proj1\"", "#SBATCH --qos=\"high\"", "#SBATCH --constraint=a100",
        "#SBATCH --exclusive", "#SBATCH --job-name=\"runner-s\"",
        "export OMP_NUM_THREADS=\"$SLURM_CPUS_PER_TASK\""}) {
    EXPECT_TRUE(has_line(script, line)) << "no line " << line << " in\n" << script;
  }
  // The extra options come after the runner's own, so sbatch takes them where both set one.
  EXPECT_LT(script.find("--gres"), script.find("--constraint"));
}

TEST(SlurmScript, UnsetResourcesAreLeftToTheCluster) {
  std::string script = batch_script(job_with({}));
  for (const char* option : {"--partition", "--time", "--cpus-per-task", "--mem", "--gres",
                             "--account", "--qos", "OMP_NUM_THREADS", "%"}) {
    if (std::string(option) == "%") {
      EXPECT_TRUE(has_line(script, "#SBATCH --array=1-3")) << script;
    } else {
      EXPECT_EQ(script.find(option), std::string::npos) << option << " in\n" << script;
    }
  }
}

TEST(SlurmScript, FoldersWithSpacesQuotesAndPercentSignsAreQuotedForSbatch) {
  SlurmJob job = job_with({});
  job.workdir = "/tmp/my \"runs\"";
  job.log_dir = "/tmp/100% sure/slurm";
  std::string script = batch_script(job);
  EXPECT_TRUE(has_line(script, R"(#SBATCH --chdir="/tmp/my \"runs\"")")) << script;
  EXPECT_TRUE(has_line(script, R"(#SBATCH --output="/tmp/100%% sure/slurm/%A_%a.log")")) << script;
}

TEST(SlurmScript, ShellQuotingKeepsEachArgumentOneWord) {
  EXPECT_EQ(shell_quote("plain/path-1.yaml"), "plain/path-1.yaml");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

// The exec line, run by bash as a task would: every argument arrives as it was, then --point K.
TEST(SlurmScript, TheTaskCommandReachesTheProgramUnchanged) {
  TempDir tmp;
  SlurmJob job = job_with({});
  job.command = {"/usr/bin/printf", "[%s]\n", "a b", "it's", "$HOME", "x=\"1\"", "*", "a\\b"};
  auto script = tmp.write("job.sh", batch_script(job));
  auto result = run_command("SLURM_ARRAY_TASK_ID=7 bash " + script.string());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "[a b]\n[it's]\n[$HOME]\n[x=\"1\"]\n[*]\n[a\\b]\n[--point]\n[7]\n");
}

}  // namespace
}  // namespace runner::testing
