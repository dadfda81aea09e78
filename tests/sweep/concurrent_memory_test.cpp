// The memory plan of `--jobs N`: the N largest points must fit in the machine's memory at once.
#include "runner/sweep/concurrent_memory.h"

#include <gtest/gtest.h>

#include "runner/util/errors.h"

namespace runner {
namespace {

const std::vector<PointMemory> kPoints = {{"a", 3}, {"b", 6}, {"c", 2}, {"d", 5}};

TEST(ConcurrentMemory, CountsTheLargestPointsFirst) {
  EXPECT_EQ(jobs_that_fit(kPoints, 4, 100), 4);
  EXPECT_EQ(jobs_that_fit(kPoints, 4, 11), 2);  // 6 + 5; a third (3) would need 14
  EXPECT_EQ(jobs_that_fit(kPoints, 4, 14), 3);
  EXPECT_EQ(jobs_that_fit(kPoints, 2, 100), 2) << "never more than asked";
  EXPECT_EQ(jobs_that_fit(kPoints, 4, 4), 1) << "one point is always allowed";
  EXPECT_EQ(jobs_that_fit(kPoints, 3, 0), 3) << "unknown memory: no limit";
}

TEST(ConcurrentMemory, ARefusalSaysWhatItNeedsAndWhatFits) {
  EXPECT_NO_THROW(check_jobs_fit(kPoints, 2, 11));
  EXPECT_NO_THROW(check_jobs_fit({{"a", 3}}, 8, 4)) << "fewer points than jobs";
  try {
    check_jobs_fit(kPoints, 3, 12);
    FAIL() << "6 + 5 + 3 bytes do not fit in 12";
  } catch (const UserError& error) {
    std::string text = error.what();
    EXPECT_NE(text.find("--jobs 3: the 3 largest points"), std::string::npos) << text;
    EXPECT_NE(text.find("b 6 B, d 5 B, a 3 B"), std::string::npos) << text;
    EXPECT_NE(text.find("14 B"), std::string::npos) << text;
    EXPECT_NE(text.find("--jobs 2 fits"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace runner
