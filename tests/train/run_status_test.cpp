// Run statuses: each name reads back as its status, unknown names are refused, and exit codes.
#include "runner/train/run_status.h"

#include <gtest/gtest.h>

namespace runner::testing {
namespace {

TEST(RunStatus, EachNameReadsBackAsItsStatus) {
  const RunStatus all[] = {RunStatus::completed, RunStatus::diverged,      RunStatus::interrupted,
                           RunStatus::failed,    RunStatus::out_of_memory, RunStatus::invalid};
  const char* names[] = {"completed", "diverged",      "interrupted",
                         "failed",    "out_of_memory", "invalid"};
  for (std::size_t i = 0; i < std::size(all); ++i) {
    EXPECT_STREQ(status_name(all[i]), names[i]);
    EXPECT_EQ(parse_run_status(names[i]), all[i]) << names[i];
  }
  EXPECT_EQ(known_status_names(),
            "completed, diverged, interrupted, failed, out_of_memory, invalid");
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
}

}  // namespace
}  // namespace runner::testing
