// training.mixup and training.cutmix's draws (runner/train/batch_mixing.h): Beta(alpha, alpha)
// against its known distributions, timm's choice between mixing, cutting and neither, and the
// cutmix box with the area-corrected lam.
#include "runner/train/batch_mixing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "runner/data/augmentation.h"

namespace runner {
namespace {

std::vector<double> beta_draws(double alpha, int count) {
  std::vector<double> draws;
  for (int i = 0; i < count; ++i) {
    DrawStream stream(augment_math::draw(11, i, 0, 0));
    draws.push_back(symmetric_beta(alpha, stream));
  }
  std::sort(draws.begin(), draws.end());
  return draws;
}

// The largest gap between the draws' empirical CDF and `cdf` (Kolmogorov-Smirnov's D).
template <typename Cdf>
double ks_distance(const std::vector<double>& sorted, Cdf cdf) {
  double worst = 0;
  const double n = static_cast<double>(sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const double f = cdf(sorted[i]);
    worst = std::max({worst, std::abs(f - i / n), std::abs(f - (i + 1) / n)});
  }
  return worst;
}

TEST(BatchMixing, BetaDrawsFollowTheirDistribution) {
  constexpr int kDraws = 20000;
  // D's 0.1 % critical value for 20,000 draws is 1.95 / sqrt(20000) = 0.0138.
  constexpr double kCritical = 0.0138;
  // Beta(1, 1) is uniform; Beta(1/2, 1/2) the arcsine law, CDF 2/pi asin(sqrt(x)).
  EXPECT_LT(ks_distance(beta_draws(1.0, kDraws), [](double x) { return x; }), kCritical);
  EXPECT_LT(ks_distance(beta_draws(0.5, kDraws),
                        [](double x) { return 2 / std::numbers::pi * std::asin(std::sqrt(x)); }),
            kCritical);
  // Beta(a, a): mean 1/2, variance 1 / (4 (2a + 1)), for the shapes timm's recipes use.
  for (double alpha : {0.2, 0.8, 4.0}) {
    SCOPED_TRACE(alpha);
    const std::vector<double> draws = beta_draws(alpha, kDraws);
    double mean = 0, squares = 0;
    for (double x : draws) {
      ASSERT_GE(x, 0.0);
      ASSERT_LE(x, 1.0);
      mean += x;
    }
    mean /= kDraws;
    for (double x : draws) squares += (x - mean) * (x - mean);
    const double variance = squares / (kDraws - 1);
    const double want = 1 / (4 * (2 * alpha + 1));
    EXPECT_NEAR(mean, 0.5, 0.01);
    EXPECT_NEAR(variance, want, 0.04 * want);
  }
}

TEST(BatchMixing, ChoosesAsTimmDoesAndAlikeForTheSameStep) {
  MixingSpec spec;
  spec.mixup_alpha = 0.8;
  spec.cutmix_alpha = 1.0;
  spec.prob = 0.7;
  spec.switch_prob = 0.25;
  const BatchMixer mixer(spec, 5, 12, 20);
  const BatchMixer again(spec, 5, 12, 20);
  int unmixed = 0, cut = 0, blended = 0;
  constexpr int kSteps = 8000;
  for (int step = 0; step < kSteps; ++step) {
    const batch_mix::BatchMix mix = mixer.choose(step);
    const batch_mix::BatchMix repeat = again.choose(step);
    ASSERT_EQ(mix.lam, repeat.lam);
    ASSERT_EQ(mix.cut, repeat.cut);
    ASSERT_EQ(mix.top, repeat.top);
    ASSERT_EQ(mix.left, repeat.left);
    if (!batch_mix::active(mix)) {
      ++unmixed;
    } else if (mix.cut) {
      ++cut;
      // The box is inside the image and lam is the share it leaves uncovered.
      ASSERT_LE(0, mix.top);
      ASSERT_LE(mix.top, mix.bottom);
      ASSERT_LE(mix.bottom, 12);
      ASSERT_LE(0, mix.left);
      ASSERT_LE(mix.left, mix.right);
      ASSERT_LE(mix.right, 20);
      const double area = (mix.bottom - mix.top) * (mix.right - mix.left);
      ASSERT_FLOAT_EQ(mix.lam, static_cast<float>(1 - area / 240));
    } else {
      ++blended;
      ASSERT_GE(mix.lam, 0.f);
      ASSERT_LE(mix.lam, 1.f);
    }
  }
  // Mixed 70 % of the time; of those, cut 25 %. (A cut box that is empty leaves lam 1: rare.)
  EXPECT_NEAR(static_cast<double>(unmixed) / kSteps, 0.3, 0.02);
  EXPECT_NEAR(static_cast<double>(cut) / (cut + blended), 0.25, 0.02);
}

TEST(BatchMixing, CutBoxesCoverWhatTimmsBoxesCoverOnAverage) {
  // cutmix alone, alpha 1, 32x32 images: timm's rand_bbox with lam ~ U(0, 1), simulated with
  // numpy over 400,000 draws, covers 0.299 of the image on average (sd 0.183), its boxes
  // clipped at the edges.
  MixingSpec spec;
  spec.cutmix_alpha = 1.0;
  const BatchMixer mixer(spec, 9, 32, 32);
  double covered = 0;
  constexpr int kSteps = 6000;
  for (int step = 0; step < kSteps; ++step) {
    const batch_mix::BatchMix mix = mixer.choose(step);
    if (batch_mix::active(mix)) EXPECT_EQ(mix.cut, 1);
    covered += 1 - mix.lam;
  }
  EXPECT_NEAR(covered / kSteps, 0.299, 0.01);  // four standard errors
}

TEST(BatchMixing, OffMixesNothingAndDifferentSeedsDiffer) {
  const BatchMixer off(MixingSpec{}, 1, 8, 8);
  for (int step = 0; step < 50; ++step) EXPECT_FALSE(batch_mix::active(off.choose(step)));
  MixingSpec spec;
  spec.mixup_alpha = 0.4;
  const BatchMixer a(spec, 1, 8, 8), b(spec, 2, 8, 8);
  int same = 0;
  for (int step = 0; step < 50; ++step) same += a.choose(step).lam == b.choose(step).lam;
  EXPECT_LT(same, 3);
}

}  // namespace
}  // namespace runner
