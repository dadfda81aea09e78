// `runner sweep --tag key=value`: every point's report carries the tags (over the config's
// `tags:`), whether the point runs in this process, as a `--jobs` child or as a Slurm task (which
// reruns the command line with --point K); a malformed tag stops the sweep before any point runs.
#include <gtest/gtest.h>

#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

// The tiny config with `tags: {team: y, owner: me}`: the command line's team must win.
std::filesystem::path tagged_config(const TempDir& tmp) {
  return tmp.write("tagged.yaml", read_file(tiny_config()) + "tags: {team: y, owner: me}\n");
}

std::string tagged_sweep(const TempDir& tmp, const std::string& rest) {
  return "sweep '" + tagged_config(tmp).string() + "' --name s --output '" +
         (tmp / "out").string() +
         "' --mode train --set training.epochs=1 --set checkpoint.path= --grid "
         "training.batch_size=32,64 --quiet --tag team=x --tag run=a=b " +
         rest;
}

void expect_tagged(const std::filesystem::path& sweep, const std::vector<std::string>& ids) {
  const json expected = {{"team", "x"}, {"owner", "me"}, {"run", "a=b"}};
  for (const auto& id : ids) {
    json report = read_json(sweep / id / "report.json");
    ASSERT_TRUE(report.is_object()) << id;
    EXPECT_EQ(report.value("status", ""), "completed") << id;
    EXPECT_EQ(report["tags"], expected) << id;
  }
}

TEST(SweepTags, EveryPointRunInProcessCarriesTheTags) {
  TempDir tmp;
  auto result = run_runner(tagged_sweep(tmp, ""));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  expect_tagged(tmp / "out" / "s", {"batch_size=32", "batch_size=64"});
}

TEST(SweepTags, EveryPointRunAsAJobsChildCarriesTheTags) {
  TempDir tmp;
  auto result = run_runner(tagged_sweep(tmp, "--jobs 2"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  expect_tagged(tmp / "out" / "s", {"batch_size=32", "batch_size=64"});
}

// The Slurm batch script's command, run as task 2 would be: the same tags.
TEST(SweepTags, ASlurmTaskCarriesTheTags) {
  TempDir tmp;
  auto submitter = run_runner(tagged_sweep(tmp, "--launcher slurm --dry-run"));
  ASSERT_EQ(submitter.exit_code, 0) << submitter.output;
  auto at = submitter.output.find("\nexec ");
  ASSERT_NE(at, std::string::npos) << submitter.output;
  std::string exec = submitter.output.substr(at + 1, submitter.output.find('\n', at + 1) - at - 1);
  auto script = tmp.write("task.sh", "set -eu\n" + exec + "\n");
  auto task = run_command("cd '" + std::filesystem::current_path().string() +
                          "' && SLURM_ARRAY_TASK_ID=2 bash '" + script.string() + "'");
  ASSERT_EQ(task.exit_code, 0) << task.output;
  expect_tagged(tmp / "out" / "s", {"batch_size=64"});
}

TEST(SweepTags, AMalformedTagStopsTheSweepBeforeAnyPointRuns) {
  TempDir tmp;
  auto result = run_runner(tagged_sweep(tmp, "--tag nokey"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--tag"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("nokey"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "out" / "s" / "batch_size=32"));
}

}  // namespace
}  // namespace runner::testing
