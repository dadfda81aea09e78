// The weighted and focal training loss (training.loss: class_weights, focal_gamma) against
// PyTorch's CrossEntropyLoss(weight=w, label_smoothing=e) and an autograd focal loss
// (weighted_loss_golden.json, written by scripts/weighted_loss_golden.py), against finite
// differences, and in a CPU program whose batch runs whole or in chunks.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "backends/common/host_math.h"
#include "backends/common/weighted_cross_entropy.h"
#include "backends/onednn/onednn_backend.h"
#include "finite_differences.h"
#include "layer_cases.h"
#include "lenet_training.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

LossWeighting weighting_of(const json& weights, double gamma) {
  LossWeighting w;
  if (weights.is_array()) w.class_weights = weights.get<std::vector<float>>();
  w.focal_gamma = gamma;
  return w;
}

TEST(WeightedLoss, LossAndGradientMatchPyTorch) {
  std::ifstream in(source_dir() / "tests" / "backends" / "weighted_loss_golden.json");
  const json golden = json::parse(in);
  ASSERT_GE(golden["cases"].size(), 6u);
  for (const json& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const int classes = c["classes"];
    const auto logits = c["logits"].get<std::vector<float>>();
    const auto labels = c["labels"].get<std::vector<std::int32_t>>();
    const auto want_grad = c["grad"].get<std::vector<double>>();
    const LossWeighting weighting = weighting_of(c["weights"], c["gamma"]);
    const int count = static_cast<int>(labels.size());
    const int rows = count + 1;  // a padding row, whose gradient must be zero
    std::vector<float> padded = logits;
    padded.resize(static_cast<std::size_t>(rows) * classes, 1.f);
    std::vector<float> grad(padded.size(), -1.f);
    const double weight = batch_weight(labels.data(), count, weighting);
    const double sum =
        weighted_softmax_cross_entropy(padded.data(), labels.data(), count, rows, classes,
                                       grad.data(), weight, c["smoothing"], weighting);
    EXPECT_NEAR(sum / weight, c["mean_loss"].get<double>(), 1e-9);
    for (std::size_t i = 0; i < want_grad.size(); ++i) {
      EXPECT_NEAR(grad[i], want_grad[i], 1e-7) << "gradient element " << i;
    }
    for (std::size_t i = want_grad.size(); i < grad.size(); ++i) EXPECT_EQ(grad[i], 0.f);
  }
}

TEST(WeightedLoss, GradientMatchesFiniteDifferences) {
  constexpr int kRows = 5, kClasses = 6;
  std::mt19937 random(3);
  std::normal_distribution<float> normal(0.f, 2.f);
  std::vector<float> logits(kRows * kClasses);
  for (float& z : logits) z = normal(random);
  const std::vector<std::int32_t> labels = {0, 3, 5, 3, 1};
  for (double gamma : {0.0, 0.5, 2.0}) {
    for (double smoothing : {0.0, 0.15}) {
      SCOPED_TRACE(::testing::Message() << "gamma " << gamma << " smoothing " << smoothing);
      LossWeighting weighting;
      weighting.class_weights = {1.f, 0.5f, 2.f, 3.f, 0.f, 1.5f};
      weighting.focal_gamma = gamma;
      const double weight = batch_weight(labels.data(), kRows, weighting);
      auto loss_at = [&](const std::vector<float>& z) {
        std::vector<float> unused(z.size());
        return weighted_softmax_cross_entropy(z.data(), labels.data(), kRows, kRows, kClasses,
                                              unused.data(), weight, smoothing, weighting) /
               weight;
      };
      std::vector<float> grad(logits.size());
      weighted_softmax_cross_entropy(logits.data(), labels.data(), kRows, kRows, kClasses,
                                     grad.data(), weight, smoothing, weighting);
      expect_gradient_matches_finite_differences(logits, grad, loss_at);
    }
  }
}

TEST(WeightedLoss, UnitWeightsWithoutFocusAreThePlainLoss) {
  constexpr int kRows = 4, kClasses = 5;
  std::vector<float> logits(kRows * kClasses);
  for (std::size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(1.7f * i) * 3;
  const std::vector<std::int32_t> labels = {4, 0, 2, 2};
  LossWeighting ones;
  ones.class_weights.assign(kClasses, 1.f);
  std::vector<float> weighted(logits.size()), plain(logits.size());
  const double a = weighted_softmax_cross_entropy(logits.data(), labels.data(), kRows, kRows,
                                                  kClasses, weighted.data(), kRows, 0.1, ones);
  const double b = softmax_cross_entropy(logits.data(), labels.data(), kRows, kRows, kClasses,
                                         plain.data(), kRows, 0.1);
  EXPECT_NEAR(a, b, 1e-5);
  for (std::size_t i = 0; i < plain.size(); ++i) EXPECT_NEAR(weighted[i], plain[i], 1e-7);
}

// A linear model on 3x3 images, a batch of six and weighted, focal settings for its classes.
struct WeightedLossCase {
  static constexpr int kBatch = 6;
  Graph graph;
  std::vector<std::uint8_t> images = std::vector<std::uint8_t>(kBatch * 9);
  std::vector<std::int32_t> labels = std::vector<std::int32_t>(kBatch);
  LossWeighting weighting;

  WeightedLossCase() {
    ModelSpec model;
    model.layers = {layer("flat", "flatten"), layer("fc", "linear", {{"out_features", kClasses}})};
    graph = build_graph(model, Shape{1, 3, 3}, kClasses);
    for (std::size_t i = 0; i < images.size(); ++i) images[i] = static_cast<std::uint8_t>(i * 37);
    for (int i = 0; i < kBatch; ++i) labels[i] = (i * 3) % kClasses;
    for (int k = 0; k < kClasses; ++k) weighting.class_weights.push_back(0.5f + k);
    weighting.focal_gamma = 1.0;
  }
  std::unique_ptr<Program> compile(Backend& backend, int chunk, double smoothing = 0) const {
    CompileOptions options;
    options.train_batch = options.eval_batch = kBatch;
    options.max_chunk = chunk;
    options.normalize = {{0.5f}, {0.25f}};
    options.label_smoothing = smoothing;
    options.loss_weighting = weighting;
    auto program = backend.compile(graph, options);
    program->load_parameters(initial_parameters(graph, 7));
    return program;
  }
};

// A CPU program trains on the weighted loss: a batch run whole and one run in chunks (whose
// gradients must still be of the whole batch's weighted mean) report PyTorch's batch loss and
// reach the same weights.
TEST(WeightedLoss, TheCpuProgramTrainsOnItWholeOrInChunks) {
  const WeightedLossCase c;
  constexpr int kBatch = WeightedLossCase::kBatch;
  const auto& [graph, images, labels, weighting] =
      std::tie(c.graph, c.images, c.labels, c.weighting);
  std::vector<std::vector<float>> after;
  for (int chunk : {kBatch, 2}) {
    SCOPED_TRACE(chunk);
    onednn::OnednnBackend cpu;
    auto program = c.compile(cpu, chunk);
    std::vector<float> logits(kBatch * kClasses), grad(logits.size());
    program->predict(images.data(), kBatch, logits.data());
    const double weight = batch_weight(labels.data(), kBatch, weighting);
    const double want =
        weighted_softmax_cross_entropy(logits.data(), labels.data(), kBatch, kBatch, kClasses,
                                       grad.data(), weight, 0.0, weighting) /
        weight;
    program->train_step(images.data(), labels.data(), kBatch);
    const LossSum taken = program->take_loss();
    EXPECT_NEAR(taken.mean(), want, 1e-5 * std::abs(want));
    program->predict(images.data(), kBatch, logits.data());
    after.push_back(logits);
  }
  for (std::size_t i = 0; i < after[0].size(); ++i) EXPECT_NEAR(after[0][i], after[1][i], 1e-5);
}

// The cuDNN backend's kernel against the CPU: the loss and the weights after a step.
TEST(WeightedLoss, TheGpuProgramMatchesTheCpu) {
  REQUIRE_GPU();
  const WeightedLossCase c;
  constexpr int kBatch = WeightedLossCase::kBatch;
  onednn::OnednnBackend cpu;
  for (double smoothing : {0.0, 0.1}) {
    SCOPED_TRACE(smoothing);
    auto reference = c.compile(cpu, kBatch, smoothing);
    auto program = c.compile(*gpu, kBatch, smoothing);
    reference->train_step(c.images.data(), c.labels.data(), kBatch);
    program->train_step(c.images.data(), c.labels.data(), kBatch);
    const double want = reference->take_loss().mean(), got = program->take_loss().mean();
    EXPECT_NEAR(got, want, 1e-5 * std::abs(want));
    std::vector<float> expected(kBatch * kClasses), actual(kBatch * kClasses);
    reference->predict(c.images.data(), kBatch, expected.data());
    program->predict(c.images.data(), kBatch, actual.data());
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(actual[i], expected[i], 1e-4);
  }
}

}  // namespace
}  // namespace runner::testing
