// The pure parts of `runner sweep --jobs N`: the sweep's last line and exit code, the progress
// line's estimate, and the hand-out of GPUs.
#include <gtest/gtest.h>

#include "runner/sweep/gpu_slots.h"
#include "runner/sweep/jobs_progress.h"
#include "runner/sweep/sweep_tally.h"

namespace runner {
namespace {

SweepTally tally_of(std::map<RunStatus, int> counts) {
  SweepTally tally;
  tally.counts = std::move(counts);
  for (const auto& [status, n] : tally.counts) tally.ran += n;
  return tally;
}

TEST(SweepTally, ExitCodesFollowWhatThePointsCameTo) {
  EXPECT_EQ(sweep_exit_code(tally_of({{RunStatus::invalid, 3}})), 2);
  EXPECT_EQ(sweep_exit_code(tally_of({{RunStatus::invalid, 2}, {RunStatus::failed, 1}})), 1);
  EXPECT_EQ(sweep_exit_code(tally_of({{RunStatus::diverged, 1}})), 1);
  EXPECT_EQ(sweep_exit_code(tally_of({{RunStatus::completed, 1}, {RunStatus::failed, 3}})), 0);
  SweepTally interrupted = tally_of({{RunStatus::invalid, 3}});
  interrupted.interrupted = true;
  EXPECT_EQ(sweep_exit_code(interrupted), 130);
  SweepTally stopped = tally_of({{RunStatus::completed, 1}, {RunStatus::failed, 1}});
  stopped.stopped = true;
  EXPECT_EQ(sweep_exit_code(stopped), 1);
}

TEST(SweepTally, TheLastLineCountsThePointsThatDidNotComplete) {
  std::string line = tally_line(
      "s", tally_of({{RunStatus::completed, 2}, {RunStatus::failed, 1}, {RunStatus::invalid, 2}}));
  EXPECT_NE(line.find("sweep s: 2 completed, 1 failed, 2 invalid (5 run now, 0 skipped as done)"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("3 of 5 points did not complete (1 failed, 2 invalid)"), std::string::npos)
      << line;
  EXPECT_EQ(tally_line("s", tally_of({{RunStatus::completed, 2}})).find("did not"),
            std::string::npos);
}

TEST(JobsProgress, EstimatesTheTimeLeftFromTheMeanPointTime) {
  JobsProgress progress(10, 2);
  EXPECT_EQ(progress.line({"1 a", "2 b"}), "[0/10 finished] running: 1 a, 2 b");
  progress.finished(10);
  progress.finished(30);  // mean 20 s; 8 left, 2 at a time: 4 rounds
  EXPECT_EQ(progress.line({"3 c"}), "[2/10 finished] running: 3 c; about 1m20s left");
  progress.finished(0, /*ran=*/false);  // an invalid point: done, but no time to count
  EXPECT_EQ(progress.line({}), "[3/10 finished] running: ; about 1m20s left");
  EXPECT_EQ(short_duration(42), "42s");
  EXPECT_EQ(short_duration(7380), "2h03m");
}

PlannedPoint on(const std::string& device) {
  PlannedPoint p;
  p.device = *Device::parse(device);
  return p;
}

TEST(GpuSlots, APointNeverSharesAGpu) {
  GpuSlots slots({0, 1});
  EXPECT_EQ(slots.take(on("cpu")), -1) << "a CPU point needs no GPU";
  EXPECT_EQ(slots.take(on("cuda")), 0);
  EXPECT_EQ(slots.take(on("auto")), 1);
  EXPECT_EQ(slots.take(on("cuda")), std::nullopt) << "both busy: it waits";
  EXPECT_EQ(slots.take(on("cpu")), -1);
  slots.give_back(0);
  EXPECT_EQ(slots.take(on("cuda:1")), std::nullopt) << "cuda:1 is busy";
  EXPECT_EQ(slots.take(on("cuda:0")), 0);
  EXPECT_EQ(slots.take(on("cuda:7")), -1) << "not handed out: runs as configured";
  GpuSlots none({});
  EXPECT_EQ(none.take(on("cuda")), -1) << "no GPUs: it runs (and fails) as configured";
}

}  // namespace
}  // namespace runner
