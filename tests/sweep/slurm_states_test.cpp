// Reading squeue's and sacct's output about a job array, and judging each point from it and its
// report.
#include "runner/sweep/slurm_states.h"

#include <gtest/gtest.h>

#include "runner/sweep/slurm_progress.h"

namespace runner::testing {
namespace {

TEST(SlurmStates, SqueueLinesGiveEachTaskItsState) {
  // squeue --noheader --array --states=all --jobs=12 --format=%i|%T|%r
  std::string out =
      "12_1|COMPLETED|None\n12_2|RUNNING|None\n12_3|PENDING|Resources\n12_4|TIMEOUT|TimeLimit\n"
      "120_5|RUNNING|None\n";
  auto states = parse_task_states(out, "12");
  ASSERT_EQ(states.size(), 4u);
  EXPECT_EQ(states[1], "COMPLETED");
  EXPECT_EQ(states[2], "RUNNING");
  EXPECT_EQ(states[3], "PENDING");
  EXPECT_EQ(states[4], "TIMEOUT");
  EXPECT_FALSE(states.count(5)) << "job 120 is another job";
}

TEST(SlurmStates, SacctRangesStepsAndCancelledByAreRead) {
  // sacct --noheader --parsable2 --allocations --jobs=7 --format=JobID,State
  std::string out =
      "7_1|CANCELLED by 0\n7_2|OUT_OF_MEMORY\n7_2.batch|OUT_OF_MEMORY\n7_[3-5,8%2]|PENDING\n"
      "7_6|NODE_FAIL\r\ngarbage\n|\n7_x|FAILED\n";
  auto states = parse_task_states(out, "7");
  EXPECT_EQ(states[1], "CANCELLED");
  EXPECT_EQ(states[2], "OUT_OF_MEMORY");
  for (int task : {3, 4, 5, 8}) EXPECT_EQ(states[task], "PENDING") << task;
  EXPECT_EQ(states[6], "NODE_FAIL");
  EXPECT_EQ(states.size(), 7u);
}

TEST(SlurmStates, EachStateHasItsPhase) {
  for (const char* s : {"PENDING", "REQUEUED", "CONFIGURING"})
    EXPECT_EQ(task_phase(s), TaskPhase::pending) << s;
  for (const char* s : {"RUNNING", "COMPLETING", "SUSPENDED"})
    EXPECT_EQ(task_phase(s), TaskPhase::running) << s;
  for (const char* s : {"COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY",
                        "PREEMPTED", "SOMETHING_NEW"})
    EXPECT_EQ(task_phase(s), TaskPhase::ended) << s;
}

TEST(SlurmProgress, APointIsCompletedOnlyByAReportOfThePlan) {
  PointEvidence e;
  e.job_id = "5";
  e.report = ReportedStatus::of(RunStatus::completed);
  e.report_of_plan = true;
  EXPECT_EQ(judge_point(e).status, SlurmPointStatus::completed);
  e.report_of_plan = false;  // made from another config: not this plan's point
  e.slurm_state = "COMPLETED";
  PointJudgement j = judge_point(e);
  EXPECT_EQ(j.status, SlurmPointStatus::failed);
  EXPECT_NE(j.detail.find("another plan"), std::string::npos) << j.detail;
}

TEST(SlurmProgress, QueuedAndRunningTasksKeepTheirPointOpen) {
  PointEvidence e;
  e.job_id = "5";
  e.report = ReportedStatus::of(RunStatus::failed);  // of an earlier attempt
  e.slurm_state = "PENDING";
  EXPECT_EQ(judge_point(e).status, SlurmPointStatus::pending);
  e.slurm_state = "RUNNING";
  EXPECT_EQ(judge_point(e).status, SlurmPointStatus::running);
}

TEST(SlurmProgress, ATaskThatEndedWithoutACompleteReportFailed) {
  for (const char* state : {"TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "CANCELLED", "COMPLETED"}) {
    PointEvidence e;
    e.job_id = "5";
    e.slurm_state = state;
    PointJudgement j = judge_point(e);
    EXPECT_EQ(j.status, SlurmPointStatus::failed) << state;
    EXPECT_NE(j.detail.find(state), std::string::npos) << j.detail;
    EXPECT_NE(j.detail.find("no report"), std::string::npos) << j.detail;
  }
  PointEvidence forgotten;  // Slurm no longer remembers the task, and it left no report
  forgotten.job_id = "5";
  EXPECT_EQ(judge_point(forgotten).status, SlurmPointStatus::failed);
  PointEvidence diverged;
  diverged.job_id = "5";
  diverged.slurm_state = "FAILED";
  diverged.report = ReportedStatus::of(RunStatus::diverged);
  diverged.report_error = "loss is NaN";
  EXPECT_NE(judge_point(diverged).detail.find("diverged: loss is NaN"), std::string::npos);
}

TEST(SlurmProgress, APointInNoJobIsNotSubmitted) {
  PointEvidence e;
  EXPECT_EQ(judge_point(e).status, SlurmPointStatus::not_submitted);
  EXPECT_STREQ(status_name(SlurmPointStatus::not_submitted), "not_submitted");
}

}  // namespace
}  // namespace runner::testing
