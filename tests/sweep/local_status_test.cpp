// `runner sweep status DIR` for sweeps run on this machine: each point's status from its folder
// and report, whether a sweep runs into the folder now (its lock, read from /proc/locks), and
// the time left.
#include <gtest/gtest.h>

#include "runner/sweep/local_progress.h"
#include "runner/util/files.h"
#include "runner/util/folder_lock.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

// `report`: a report's status text, "" for no report.
LocalPointStatus judged(const std::string& report, bool of_plan, bool folder, bool running) {
  LocalPointEvidence evidence;
  if (!report.empty()) evidence.report = ReportedStatus::parse(report);
  evidence.report_of_plan = of_plan;
  evidence.folder_exists = folder;
  evidence.sweep_running = running;
  return judge_local_point(evidence).status;
}

TEST(LocalProgress, EachPointIsJudgedFromItsReportFolderAndTheSweepsLock) {
  EXPECT_EQ(judged("completed", true, true, false), LocalPointStatus::completed);
  EXPECT_EQ(judged("completed", false, true, false), LocalPointStatus::not_run);  // stale
  EXPECT_EQ(judged("completed", false, true, true), LocalPointStatus::waiting);
  EXPECT_EQ(judged("diverged", true, true, false), LocalPointStatus::failed);
  EXPECT_EQ(judged("out_of_memory", true, true, true), LocalPointStatus::failed);
  EXPECT_EQ(judged("interrupted", true, true, false), LocalPointStatus::not_run);
  EXPECT_EQ(judged("", false, false, false), LocalPointStatus::not_run);
  EXPECT_EQ(judged("", false, false, true), LocalPointStatus::waiting);
  EXPECT_EQ(judged("", false, true, true), LocalPointStatus::running);
  LocalPointEvidence failed;
  failed.report = ReportedStatus::of(RunStatus::failed);
  failed.report_error = "out of disk";
  EXPECT_EQ(judge_local_point(failed).detail, "failed: out of disk");
  // A live report: the point trains now (its place the detail), or was killed while it trained.
  EXPECT_EQ(judged("running", true, true, true), LocalPointStatus::running);
  EXPECT_EQ(judged("running", true, true, false), LocalPointStatus::not_run);
  LocalPointEvidence live;
  live.report = ReportedStatus::of(RunStatus::running);
  live.folder_exists = live.sweep_running = true;
  RecordProgress progress;
  progress.epochs_done = 3;
  progress.epochs_planned = 20;
  progress.seconds_left = 125;
  live.progress = live_progress_text(progress);
  EXPECT_EQ(judge_local_point(live).detail, "epoch 3 of 20, about 2 min left");
  live.sweep_running = false;
  EXPECT_EQ(judge_local_point(live).detail,
            "was killed while running (at epoch 3 of 20, about 2 min left)");
  EXPECT_EQ(live_progress_text(std::nullopt), "");
}

TEST(LocalProgress, TimeLeftIsTheMedianRunTimesThePointsLeftOverThoseRunningAtOnce) {
  EXPECT_FALSE(time_left({}, 3, 1));
  EXPECT_DOUBLE_EQ(*time_left({10, 20, 300}, 4, 1), 80.0);  // the median, not the mean
  EXPECT_DOUBLE_EQ(*time_left({10, 20}, 4, 2), 30.0);
  EXPECT_DOUBLE_EQ(*time_left({10}, 4, 0), 40.0);
  EXPECT_EQ(duration_text(40.2), "40 s");
  EXPECT_EQ(duration_text(12 * 60 + 10), "12 min");
  EXPECT_EQ(duration_text(3 * 3600 + 5 * 60), "3 h 05 min");
}

TEST(FolderLockHeld, IsReadFromProcLocksWithoutTakingTheLock) {
  TempDir tmp;
  EXPECT_FALSE(folder_lock_held(tmp / "none"));
  {
    FolderLock lock(tmp / "s", "sweep");
    EXPECT_TRUE(folder_lock_held(tmp / "s"));
    EXPECT_FALSE(folder_lock_held(tmp.path()));
  }
  EXPECT_FALSE(folder_lock_held(tmp / "s"));  // released, the file left behind
  EXPECT_TRUE(std::filesystem::exists(tmp / "s" / ".lock"));
}

TEST(LocalStatus, ASweepRunHereIsFollowedFromItsFolder) {
  TempDir tmp;
  auto run =
      run_runner("sweep " + tiny_config() + " --name s --output " + quoted(tmp.path()) +
                 " --mode train --set training.epochs=1 --grid training.batch_size=8,16,32 -q");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto dir = tmp / "s";
  auto status = run_runner("sweep status " + quoted(dir));
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("3 points: 3 completed; no sweep runs into this folder now"),
            std::string::npos)
      << status.output;

  // One point failed, one was never run: the table says which and why.
  json report = read_json(dir / "batch_size=16" / "report.json");
  report["status"] = "diverged";
  report["error"] = "the training loss is nan";
  write_json_atomically(dir / "batch_size=16" / "report.json", report);
  std::filesystem::remove_all(dir / "batch_size=32");
  status = run_runner("sweep status " + quoted(dir));
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("batch_size=16  failed     diverged: the training loss is nan"),
            std::string::npos)
      << status.output;
  EXPECT_NE(status.output.find("1 completed, 1 failed, 1 not_run"), std::string::npos)
      << status.output;

  // While a sweep holds the folder: the point without a folder waits, and the time left is the
  // completed point's run time.
  {
    FolderLock held(dir, "sweep");
    status = run_runner("sweep status " + quoted(dir));
    EXPECT_EQ(status.exit_code, 0) << status.output;
    EXPECT_NE(status.output.find("batch_size=32  waiting"), std::string::npos) << status.output;
    EXPECT_NE(status.output.find("left"), std::string::npos) << status.output;
    EXPECT_EQ(status.output.find("no sweep runs"), std::string::npos) << status.output;
  }

  auto waited = run_runner("sweep status " + quoted(dir) + " --wait");
  EXPECT_EQ(waited.exit_code, 0) << waited.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "summary.md"));
  // A forged plan: points of other shapes are left out, never a raw type error.
  json plan = read_json(dir / "sweep.json");
  plan["points"].push_back("x");
  plan["points"].push_back(json{{"id", 5}});
  plan["points"].push_back(json{{"id", "batch_size=8"}, {"index", "a"}});
  write_json_atomically(dir / "sweep.json", plan);
  status = run_runner("sweep status " + quoted(dir));
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("4 points:"), std::string::npos) << status.output;

  auto nothing = run_runner("sweep status " + quoted(tmp / "nowhere"));
  EXPECT_EQ(nothing.exit_code, 2) << nothing.output;
  EXPECT_NE(nothing.output.find("no sweep here"), std::string::npos) << nothing.output;
}

}  // namespace
}  // namespace runner::testing
