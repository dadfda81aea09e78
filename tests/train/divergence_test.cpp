// A run diverges when its loss stops being finite or climbs past the divergence threshold
// (Lightning's divergence_threshold): by default 1,000 times a uniform guess's loss.
#include <gtest/gtest.h>

#include <cmath>

#include "runner/train/stop_checks.h"

namespace runner {
namespace {

TEST(Divergence, TheDefaultThresholdIsAThousandUniformGuesses) {
  TrainingSpec training;
  EXPECT_DOUBLE_EQ(divergence_threshold(training, 10), 1000 * std::log(10.0));
  EXPECT_DOUBLE_EQ(divergence_threshold(training, 1), 1000 * std::log(2.0)) << "one class: two";
  training.divergence_threshold = 5.0;
  EXPECT_DOUBLE_EQ(divergence_threshold(training, 10), 5.0);
}

TEST(Divergence, ALossAboveTheThresholdOrNotFiniteDiverges) {
  TrainingOutcome below;
  EXPECT_FALSE(stop_if_diverged(below, 2302.0, 2302.5, "in epoch 1"));
  EXPECT_EQ(below.status, RunStatus::completed);

  TrainingOutcome above;
  EXPECT_TRUE(stop_if_diverged(above, 1.8e6, 2302.5, "in epoch 1"));
  EXPECT_EQ(above.status, RunStatus::diverged);
  EXPECT_EQ(above.error,
            "the loss diverged (1.8e+06, above training.divergence_threshold 2302.5) in epoch 1");

  TrainingOutcome nan;
  EXPECT_TRUE(stop_if_diverged(nan, std::nan(""), 1e30, "at mini-batch 8"));
  EXPECT_EQ(nan.error, "the loss diverged (nan) at mini-batch 8");

  TrainingOutcome interrupted;  // the first reason to stop stays the reason
  interrupted.status = RunStatus::interrupted;
  EXPECT_FALSE(stop_if_diverged(interrupted, 1e30, 1.0, "later"));
  EXPECT_EQ(interrupted.status, RunStatus::interrupted);
}

}  // namespace
}  // namespace runner
