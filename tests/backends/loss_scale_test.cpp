// fp16's dynamic loss scale (backends/common/loss_scale_math.h) against torch.cuda.amp.GradScaler's
// rules, on the host: the arithmetic the GPU's begin_step kernel runs. Also the precisions the
// cuDNN backend offers by compute capability (backends/cudnn/gpu_precisions.h).
#include <gtest/gtest.h>

#include "backends/common/loss_scale_math.h"
#include "backends/cudnn/gpu_precisions.h"

namespace runner::loss_scale_math {
namespace {

TEST(LossScale, StartsAtGradScalersDefaultScale) {
  const Settings settings;
  const State s = initial_state(settings);
  EXPECT_EQ(s.scale, 65536.f);
  EXPECT_EQ(s.growth_tracker, 0);
  EXPECT_EQ(s.skipped_steps, 0);
  EXPECT_EQ(unscale_factor(s), 1.f / 65536.f);
  EXPECT_EQ(unscale_factor(s) * s.scale, 1.f) << "a power of two: unscaling is exact";
}

TEST(LossScale, AnInfHalvesTheScaleCountsTheSkipAndRestartsTheTracker) {
  const Settings settings;
  State s = initial_state(settings);
  for (int i = 0; i < 5; ++i) update(s, false, settings);
  EXPECT_EQ(s.growth_tracker, 5);
  update(s, true, settings);
  EXPECT_EQ(s.scale, 32768.f);
  EXPECT_EQ(s.growth_tracker, 0);
  EXPECT_EQ(s.skipped_steps, 1);
  update(s, true, settings);
  EXPECT_EQ(s.scale, 16384.f);
  EXPECT_EQ(s.skipped_steps, 2);
}

TEST(LossScale, DoublesAfterGrowthIntervalCleanStepsInARow) {
  const Settings settings;
  State s = initial_state(settings);
  for (int i = 0; i < settings.growth_interval - 1; ++i) update(s, false, settings);
  EXPECT_EQ(s.scale, 65536.f) << "one clean step short";
  EXPECT_EQ(s.growth_tracker, 1999);
  update(s, false, settings);
  EXPECT_EQ(s.scale, 131072.f);
  EXPECT_EQ(s.growth_tracker, 0);
  EXPECT_EQ(s.skipped_steps, 0);
  // An inf in between restarts the count: 2000 more clean steps for the next doubling.
  for (int i = 0; i < 1000; ++i) update(s, false, settings);
  update(s, true, settings);
  for (int i = 0; i < 1999; ++i) update(s, false, settings);
  EXPECT_EQ(s.scale, 65536.f);
  update(s, false, settings);
  EXPECT_EQ(s.scale, 131072.f);
}

TEST(LossScale, NeverGrowsToInfinity) {
  Settings settings;
  settings.growth_interval = 1;
  State s = initial_state(settings);
  for (int i = 0; i < 200; ++i) update(s, false, settings);
  EXPECT_EQ(s.scale, 0x1p127f) << "the largest power of two a float holds";
  EXPECT_EQ(s.growth_tracker, 0);
}

TEST(GpuPrecisions, ByComputeCapability) {
  using cudnn::gpu_precisions;
  const auto volta = gpu_precisions(7, 0), turing = gpu_precisions(7, 5);
  const auto ampere = gpu_precisions(8, 0), hopper = gpu_precisions(9, 0);
  EXPECT_EQ(gpu_precisions(6, 1).size(), 1u) << "Pascal: fp32 only";
  EXPECT_TRUE(volta.contains(Precision::fp16));
  EXPECT_FALSE(turing.contains(Precision::bf16));
  EXPECT_FALSE(turing.contains(Precision::tf32));
  EXPECT_EQ(ampere.size(), 4u);
  EXPECT_EQ(hopper.size(), 4u);
  for (const auto& [precision, support] : hopper) EXPECT_EQ(support, PrecisionSupport::native);
}

}  // namespace
}  // namespace runner::loss_scale_math
