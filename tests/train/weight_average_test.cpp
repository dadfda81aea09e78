// training.ema's average against a plain reference: the first update copies, each later one is
// timm's lerp (torchvision's decay x average + (1 - decay) x weights), every `every` steps; the
// program's own weights come back exactly after an evaluation with the average.
#include "runner/train/weight_average.h"

#include <gtest/gtest.h>

#include <cmath>

#include "forwarding_program.h"

namespace runner {
namespace {

// A program holding weights only: what the average reads and loads.
class WeightsOnly : public testing::ForwardingProgram {
 public:
  explicit WeightsOnly(std::vector<HostTensor> weights)
      : ForwardingProgram(nullptr), weights_(std::move(weights)) {}
  std::vector<HostTensor> parameters() const override { return weights_; }
  void load_parameters(const std::vector<HostTensor>& t) override { weights_ = t; }
  void set(float value) {
    for (HostTensor& t : weights_)
      for (float& v : t.values) v = value + static_cast<float>(&v - t.values.data());
  }

 private:
  std::vector<HostTensor> weights_;
};

std::vector<HostTensor> two_tensors() {
  return {HostTensor("fc.weight", {2, 2}, {0, 0, 0, 0}),
          HostTensor("bn.running_mean", {3}, {0, 0, 0})};
}

TEST(WeightAverage, FirstCopiesThenMovesByOneMinusDecayEveryNSteps) {
  EmaSpec spec;
  spec.enabled = true;
  spec.decay = 0.9;
  spec.every = 2;
  WeightAverage average(spec);
  WeightsOnly program(two_tensors());
  std::vector<double> reference;  // element 1 of fc.weight (value s + 1 at step s)
  for (int step = 1; step <= 9; ++step) {
    program.set(static_cast<float>(step));
    average.after_step(step, program);
    if (step % 2 != 0) continue;
    const double w = step + 1.0;
    if (reference.empty()) {
      reference.push_back(w);
    } else {
      reference.push_back(0.9 * reference.back() + 0.1 * w);
    }
  }
  ASSERT_FALSE(average.empty());
  ASSERT_EQ(reference.size(), 4u);  // steps 2, 4, 6, 8
  EXPECT_NEAR(average.tensors()[0].values[1], reference.back(), 1e-5);
  EXPECT_EQ(average.tensors()[0].name, "fc.weight");
  // Every tensor, batch norm's statistics too, element by element.
  EXPECT_NEAR(average.tensors()[1].values[2], reference.back() + 1.0, 1e-5);
}

TEST(WeightAverage, EvaluatingWithTheAverageGivesTheWeightsBackExactly) {
  EmaSpec spec;
  spec.enabled = true;
  spec.decay = 0.5;
  WeightAverage average(spec);
  WeightsOnly program(two_tensors());
  program.set(1.0f);
  average.after_step(1, program);
  program.set(3.0f);
  average.after_step(2, program);
  const std::vector<HostTensor> own = program.parameters();
  float seen = 0;
  average.with_average(program, [&] { seen = program.parameters()[0].values[0]; });
  EXPECT_FLOAT_EQ(seen, 2.0f);  // 1 + 0.5 x (3 - 1)
  EXPECT_EQ(program.parameters()[0].values, own[0].values);
  EXPECT_EQ(program.parameters()[1].values, own[1].values);
  // Also when the evaluation throws.
  EXPECT_THROW(average.with_average(program, [] { throw std::runtime_error("x"); }),
               std::runtime_error);
  EXPECT_EQ(program.parameters()[0].values, own[0].values);
}

}  // namespace
}  // namespace runner
