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

// Three steps enqueued in 1 ms each, then a loss read that waits 6 ms for the device: each step
// took 3 ms of wall time. A step left out of the times (a short batch) takes its share too.
TEST(StepClock, AReadsWaitIsSharedAmongTheStepsSinceTheLastRead) {
  StepClock clock;
  clock.step(0.001);
  clock.step(0.001);
  clock.step(0.001);
  clock.wait(0.006);
  ASSERT_EQ(clock.seconds().size(), 3u);
  for (double s : clock.seconds()) EXPECT_DOUBLE_EQ(s, 0.003);
  EXPECT_DOUBLE_EQ(clock.total(), 0.009);
  clock.step(0.002);
  clock.step(0.002, false);
  clock.wait(0.004);
  ASSERT_EQ(clock.seconds().size(), 4u);
  EXPECT_DOUBLE_EQ(clock.seconds().back(), 0.004);
  EXPECT_DOUBLE_EQ(clock.total(), 0.017);
  // A read with no step since the last one adds to the total only.
  clock.wait(0.5);
  EXPECT_DOUBLE_EQ(clock.seconds().back(), 0.004);
  EXPECT_DOUBLE_EQ(clock.total(), 0.517);
  EXPECT_DOUBLE_EQ(summarize_step_times(clock.seconds()).median, 0.003);
}

}  // namespace
}  // namespace runner
