// The finite-difference check of a loss's gradient with respect to its logits, shared by the
// loss tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace runner::testing {

// Each element of `grad` against the central difference of `loss_at` (the mean loss of some
// logits) at `logits`, with steps of 0.01.
template <typename LossAt>
void expect_gradient_matches_finite_differences(const std::vector<float>& logits,
                                                const std::vector<float>& grad, LossAt loss_at) {
  for (std::size_t i = 0; i < logits.size(); ++i) {
    constexpr float kStep = 1e-2f;
    std::vector<float> up = logits, down = logits;
    up[i] += kStep;
    down[i] -= kStep;
    const double numeric = (loss_at(up) - loss_at(down)) / (up[i] - down[i]);
    EXPECT_NEAR(grad[i], numeric, 2e-4 + 1e-3 * std::abs(numeric)) << "logit " << i;
  }
}

}  // namespace runner::testing
