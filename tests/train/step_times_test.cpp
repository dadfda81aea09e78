// Step-time percentiles: numpy's linear interpolation, on known values.
#include "runner/train/step_times.h"

#include <gtest/gtest.h>

namespace runner {
namespace {

TEST(StepTimes, MedianAndPercentilesInterpolateLikeNumpy) {
  // numpy.percentile([5, 1, 4, 2, 3], [10, 50, 90]) == [1.4, 3.0, 4.6]
  StepTimeSummary s = summarize_step_times({5, 1, 4, 2, 3});
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_DOUBLE_EQ(summarize_step_times({1, 2, 3, 100}).median,
                   2.5);  // an outlier moves the mean, not the median
}

TEST(StepTimes, NoStepsGiveZeros) {
  StepTimeSummary s = summarize_step_times({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.median, 0.0);
  EXPECT_EQ(quantile_of_sorted({}, 0.5), 0.0);
  EXPECT_DOUBLE_EQ(quantile_of_sorted({7}, 0.9), 7.0);
}

}  // namespace
}  // namespace runner
