// `runner sweep --launcher slurm` against real Slurm daemons: a single-node cluster started by
// scripts/slurm_local_cluster.sh in a temporary folder (root and Debian's slurm-wlm and munge
// needed: skipped without them, except with CI=true, where that is a failure).
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>

#include "runner/sweep/asha.h"
#include "runner/sweep/rung_records.h"
#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

// Why this machine cannot run the cluster ("" when it can).
std::string missing_requirement() {
  if (::geteuid() != 0) return "not root (slurmd runs jobs as their users)";
  for (const char* tool :
       {"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo"}) {
    if (run_command(std::string("command -v ") + tool).exit_code != 0)
      return std::string(tool) + " not found (make test-deps installs slurm-wlm and munge)";
  }
  return "";
}

// The cluster, started in `dir` on a port of its own (tests may run side by side) and stopped,
// by its pid files, when the test ends.
class LocalCluster {
 public:
  explicit LocalCluster(const std::filesystem::path& dir) : dir_(dir) {
    int port = 20000 + 2 * (static_cast<int>(::getpid()) % 10000);
    start_ = run_command("SLURM_LOCAL_PORT=" + std::to_string(port) + " " + script() + " start " +
                         quoted(dir_));
  }
  ~LocalCluster() { run_command(script() + " stop " + quoted(dir_)); }
  const CommandResult& start() const { return start_; }
  // `command` with SLURM_CONF naming this cluster, at most `seconds` long.
  std::string with_conf(const std::string& command, int seconds = 300) const {
    return "timeout " + std::to_string(seconds) + " env SLURM_CONF=" + quoted(dir_ / "slurm.conf") +
           " " + command;
  }
  std::string runner(const std::string& arguments) const {
    return with_conf(std::string(RUNNER_BINARY) + " " + arguments);
  }

 private:
  static std::string script() { return (source_dir() / "scripts/slurm_local_cluster.sh").string(); }
  std::filesystem::path dir_;
  CommandResult start_;
};

// A 2x2 train sweep of the tiny config, one thread per point so that metrics are exact, into a
// folder whose path has spaces (quoted through sbatch and bash on the way).
std::filesystem::path write_sweep(const TempDir& tmp, const std::string& extra_launcher = "") {
  return tmp.write("sweep files/s.yaml",
                   "name: s2x2\nbase: " + tiny_config() +
                       "\nmode: train\nseed: 0\nset: [training.threads=1, training.epochs=1]\n"
                       "output: " +
                       (tmp / "out put").string() +
                       "\nlauncher: {type: slurm, cpus_per_task: 1, time: 10, max_parallel: 2" +
                       extra_launcher +
                       "}\nsweep:\n  grid:\n    training.batch_size: [16, 32]\n"
                       "    model.width: [0.5, 1]\n");
}

#define REQUIRE_CLUSTER_MACHINE()                                              \
  if (std::string why = missing_requirement(); !why.empty()) {                 \
    if (in_ci()) FAIL() << why << " (CI=true: the Slurm test must run in CI)"; \
    GTEST_SKIP() << why;                                                       \
  }

TEST(SlurmCluster, TwoByTwoSweepRunsAsAnArrayAndMatchesTheLocalSweep) {
  REQUIRE_CLUSTER_MACHINE();
  TempDir tmp;
  LocalCluster cluster(tmp / "cluster");
  ASSERT_EQ(cluster.start().exit_code, 0) << cluster.start().output;
  auto sweep = write_sweep(tmp);
  auto slurm = run_command(cluster.runner("sweep " + quoted(sweep) + " --wait"));
  ASSERT_EQ(slurm.exit_code, 0) << slurm.output;
  EXPECT_NE(slurm.output.find("submitted Slurm job"), std::string::npos) << slurm.output;
  const auto dir = tmp / "out put" / "s2x2";
  json record = read_json(dir / "slurm" / "job.json");
  ASSERT_EQ(record["jobs"].size(), 1u) << record.dump();
  EXPECT_EQ(record["jobs"][0]["points"], json({1, 2, 3, 4}));
  std::string job_id = record["jobs"][0]["job_id"];
  auto script = read_file(dir / "slurm" / ("job-" + job_id + ".sh"));
  EXPECT_NE(script.find("#SBATCH --array=1-4%2"), std::string::npos) << script;
  EXPECT_NE(script.find("--point \"$SLURM_ARRAY_TASK_ID\""), std::string::npos) << script;
  for (int task = 1; task <= 4; ++task) {
    auto log = dir / "slurm" / (job_id + "_" + std::to_string(task) + ".log");
    EXPECT_TRUE(std::filesystem::exists(log)) << log;
  }

  auto local =
      run_command(cluster.runner("sweep " + quoted(sweep) + " --launcher local --name local-copy"));
  ASSERT_EQ(local.exit_code, 0) << local.output;
  json rows = read_json(dir / "summary.json")["points"];
  json local_rows = read_json(tmp / "out put" / "local-copy" / "summary.json")["points"];
  ASSERT_EQ(rows.size(), 4u) << slurm.output;
  ASSERT_EQ(local_rows.size(), 4u) << local.output;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(rows[i]["id"].get<std::string>());
    EXPECT_EQ(rows[i]["status"], "completed");
    EXPECT_EQ(rows[i]["id"], local_rows[i]["id"]);
    EXPECT_TRUE(std::filesystem::exists(dir / rows[i]["id"].get<std::string>() / "report.json"));
    for (const char* metric : {"test_accuracy", "test_loss", "final_loss"}) {
      ASSERT_TRUE(rows[i][metric].is_number()) << metric << ": " << rows[i].dump();
      EXPECT_EQ(rows[i][metric], local_rows[i][metric]) << metric;
    }
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "summary.md"));

  auto status = run_command(cluster.runner("sweep status " + quoted(dir)));
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("4 points: 4 completed"), std::string::npos) << status.output;

  // Resubmitting submits only the points not completed: here the one whose report is removed.
  std::filesystem::remove(dir / rows[2]["id"].get<std::string>() / "report.json");
  auto again = run_command(cluster.runner("sweep " + quoted(sweep) + " --wait"));
  ASSERT_EQ(again.exit_code, 0) << again.output;
  record = read_json(dir / "slurm" / "job.json");
  ASSERT_EQ(record["jobs"].size(), 2u) << again.output;
  EXPECT_EQ(record["jobs"][1]["points"], json({3})) << again.output;
  EXPECT_EQ(read_json(dir / "summary.json")["points"][2]["status"], "completed") << again.output;
}

// ASHA over array tasks: each task records its trial's rungs in the shared folder and stops or
// goes on; the decisions follow the rule in the order recorded, and a stopped trial is done.
TEST(SlurmCluster, AshaTrialsDecideAtTheirRungsInTheirOwnTasks) {
  REQUIRE_CLUSTER_MACHINE();
  TempDir tmp;
  LocalCluster cluster(tmp / "cluster");
  ASSERT_EQ(cluster.start().exit_code, 0) << cluster.start().output;
  auto sweep = tmp.write(
      "asha.yaml", "name: asha\nbase: " + tiny_config() + "\noutput: " + (tmp / "out").string() +
                       "\nset: [training.threads=1, dataset.validation_split=0.2]\n"
                       "launcher: {type: slurm, cpus_per_task: 1, time: 10, max_parallel: 2}\n"
                       "sweep:\n  random:\n    trials: 6\n    seed: 3\n    space:\n"
                       "      training.optimizer.lr: {log_uniform: [1.0e-3, 0.3]}\n"
                       "  asha: {max_epochs: 3, reduction_factor: 2}\n");
  auto slurm = run_command(cluster.runner("sweep " + quoted(sweep) + " --wait"));
  ASSERT_EQ(slurm.exit_code, 0) << slurm.output;
  const auto dir = tmp / "out" / "asha";
  std::map<int, std::vector<std::optional<double>>> earlier;
  const auto records = read_rung_records(dir);
  ASSERT_GE(records.size(), 6u) << slurm.output;  // every trial reached the first rung
  for (const RungEntry& e : records) {
    EXPECT_EQ(e.continued, asha_verdict(earlier[e.rung], e.value, true, 2).continued) << e.id;
    earlier[e.rung].push_back(e.value);
  }
  const json rows = read_json(dir / "summary.json")["points"];
  ASSERT_EQ(rows.size(), 6u);
  int completed = 0;
  for (const json& row : rows) {
    EXPECT_TRUE(row["status"] == "completed" || row["status"] == "stopped_early") << row.dump();
    completed += row["status"] == "completed";
  }
  EXPECT_GE(completed, 1);
  auto status = run_command(cluster.runner("sweep status " + quoted(dir)));
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("asha: after epoch 1: 6 recorded"), std::string::npos)
      << status.output;
}

TEST(SlurmCluster, QueuedPointsAreNotResubmittedAndCancelledOnesFail) {
  REQUIRE_CLUSTER_MACHINE();
  TempDir tmp;
  LocalCluster cluster(tmp / "cluster");
  ASSERT_EQ(cluster.start().exit_code, 0) << cluster.start().output;
  // Held in the queue for an hour by an extra sbatch option.
  auto sweep = write_sweep(tmp, ", extra: [--begin=now+3600]");
  auto submit = run_command(cluster.runner("sweep " + quoted(sweep)));
  ASSERT_EQ(submit.exit_code, 0) << submit.output;
  const auto dir = tmp / "out put" / "s2x2";
  auto status = run_command(cluster.runner("sweep status " + quoted(dir)));
  EXPECT_NE(status.output.find("4 points: 4 pending"), std::string::npos) << status.output;

  auto again = run_command(cluster.runner("sweep " + quoted(sweep)));
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("nothing to submit"), std::string::npos) << again.output;
  json record = read_json(dir / "slurm" / "job.json");
  ASSERT_EQ(record["jobs"].size(), 1u) << again.output;

  std::string job_id = record["jobs"][0]["job_id"];
  auto cancel = run_command(cluster.with_conf("scancel " + job_id));
  ASSERT_EQ(cancel.exit_code, 0) << cancel.output;
  auto waited = run_command(cluster.runner("sweep status " + quoted(dir) + " --wait"));
  EXPECT_EQ(waited.exit_code, 1) << "no point completed\n" << waited.output;
  EXPECT_NE(waited.output.find("4 points: 4 failed"), std::string::npos) << waited.output;
  EXPECT_NE(waited.output.find("Slurm: CANCELLED; no report"), std::string::npos) << waited.output;
  const json summary = read_json(dir / "summary.json");  // kept: the loop reads into it
  for (const json& row : summary["points"])
    EXPECT_EQ(row["status"], "missing") << "no report was written: " << row.dump();

  // A dry run would submit all four again, and changes nothing.
  auto dry = run_command(cluster.runner("sweep " + quoted(sweep) + " --dry-run"));
  EXPECT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_NE(dry.output.find("#SBATCH --array=1-4%2"), std::string::npos) << dry.output;
  EXPECT_EQ(read_json(dir / "slurm" / "job.json")["jobs"].size(), 1u);
}

}  // namespace
}  // namespace runner::testing
