// Run statuses: each name reads back as its status, unknown names are refused, and exit codes.
#include "runner/train/run_status.h"

#include <gtest/gtest.h>

namespace runner::testing {
namespace {

TEST(RunStatus, EachNameReadsBackAsItsStatus) {
  const RunStatus all[] = {RunStatus::completed,     RunStatus::diverged, RunStatus::interrupted,
                           RunStatus::stopped_early, RunStatus::failed,   RunStatus::out_of_memory,
                           RunStatus::invalid,       RunStatus::running};
  const char* names[] = {"completed", "diverged",      "interrupted", "stopped_early",
                         "failed",    "out_of_memory", "invalid",     "running"};
  for (std::size_t i = 0; i < std::size(all); ++i) {
    EXPECT_STREQ(status_name(all[i]), names[i]);
    EXPECT_EQ(parse_run_status(names[i]), all[i]) << names[i];
  }
  EXPECT_EQ(known_status_names(),
            "completed, diverged, interrupted, stopped_early, failed, out_of_memory, invalid, "
            "running");
}

TEST(RunStatus, UnknownNamesAreNone) {
  EXPECT_EQ(parse_run_status("missing"), std::nullopt);  // a summary's row state, not a run's
  EXPECT_EQ(parse_run_status("Completed"), std::nullopt);
  EXPECT_EQ(parse_run_status(""), std::nullopt);
}

TEST(RunStatus, ExitCodes) {
  EXPECT_EQ(exit_code_for(RunStatus::completed), 0);
  EXPECT_EQ(exit_code_for(RunStatus::interrupted), 130);
  EXPECT_EQ(exit_code_for(RunStatus::diverged), 1);
  EXPECT_EQ(exit_code_for(RunStatus::out_of_memory), 1);
  EXPECT_EQ(exit_code_for(RunStatus::stopped_early), 0);  // a search's outcome, not a failure
}

TEST(RunStatus, StoppedEarlyEndsAsPlannedAndFailuresDoNot) {
  EXPECT_TRUE(ended_as_planned(RunStatus::completed));
  EXPECT_TRUE(ended_as_planned(RunStatus::stopped_early));
  for (RunStatus status : {RunStatus::diverged, RunStatus::interrupted, RunStatus::failed,
                           RunStatus::out_of_memory, RunStatus::invalid}) {
    EXPECT_FALSE(ended_as_planned(status)) << status_name(status);
  }
  EXPECT_STREQ(stop_reason_name(StopReason::asha), "asha");
}

}  // namespace
}  // namespace runner::testing
