// Label smoothing (training.label_smoothing) against PyTorch's
// CrossEntropyLoss(label_smoothing=e): the loss and its gradient for a few batches
// (label_smoothing_golden.json, written by scripts/label_smoothing_golden.py), and a CPU program
// that trains with the smoothed loss.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/common/host_math.h"
#include "backends/onednn/onednn_backend.h"
#include "layer_cases.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

json read_golden() {
  std::ifstream in(source_dir() / "tests" / "backends" / "label_smoothing_golden.json");
  return json::parse(in);
}

TEST(LabelSmoothing, LossAndGradientMatchPyTorch) {
  const json golden = read_golden();
  ASSERT_GE(golden["cases"].size(), 4u);
  for (const json& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const int classes = c["classes"];
    const auto logits = c["logits"].get<std::vector<float>>();  // float32 values, exactly
    const auto labels = c["labels"].get<std::vector<std::int32_t>>();
    const auto want_grad = c["grad"].get<std::vector<double>>();
    const int count = static_cast<int>(labels.size());
    const int rows = count + 2;  // two padding rows, whose gradient must be zero
    std::vector<float> padded = logits;
    padded.resize(static_cast<std::size_t>(rows) * classes, 1.f);
    std::vector<float> grad(padded.size(), -1.f);
    const double sum = softmax_cross_entropy(padded.data(), labels.data(), count, rows, classes,
                                             grad.data(), count, c["smoothing"].get<double>());
    // Float32 probabilities: PyTorch's float64 numbers are a few float roundings away.
    EXPECT_NEAR(sum / count, c["mean_loss"].get<double>(), 1e-6);
    for (std::size_t i = 0; i < want_grad.size(); ++i) {
      EXPECT_NEAR(grad[i], want_grad[i], 1e-7) << "gradient element " << i;
    }
    for (std::size_t i = want_grad.size(); i < grad.size(); ++i) EXPECT_EQ(grad[i], 0.f);
  }
}

// The option reaches the program's loss: a training step reports the smoothed loss of the
// logits the model had before the step.
TEST(LabelSmoothing, TheCpuProgramTrainsOnTheSmoothedLoss) {
  constexpr int kBatch = 6;
  ModelSpec model;
  model.layers = {layer("flat", "flatten"), layer("fc", "linear", {{"out_features", kClasses}})};
  const Graph graph = build_graph(model, Shape{1, 3, 3}, kClasses);
  std::vector<std::uint8_t> images(kBatch * 9);
  for (std::size_t i = 0; i < images.size(); ++i) images[i] = static_cast<std::uint8_t>(i * 37);
  std::vector<std::int32_t> labels(kBatch);
  for (int i = 0; i < kBatch; ++i) labels[i] = (i * 3) % kClasses;
  for (double smoothing : {0.0, 0.2}) {
    SCOPED_TRACE(smoothing);
    CompileOptions options;
    options.train_batch = options.eval_batch = kBatch;
    options.normalize = {{0.5f}, {0.25f}};
    options.label_smoothing = smoothing;
    auto program = onednn::OnednnBackend().compile(graph, options);
    program->load_parameters(initial_parameters(graph, 7));
    std::vector<float> logits(kBatch * kClasses), grad(logits.size());
    program->predict(images.data(), kBatch, logits.data());
    const double want = softmax_cross_entropy(logits.data(), labels.data(), kBatch, kBatch,
                                              kClasses, grad.data(), kBatch, smoothing);
    const double plain = softmax_cross_entropy(logits.data(), labels.data(), kBatch, kBatch,
                                               kClasses, grad.data(), kBatch);
    program->train_step(images.data(), labels.data(), kBatch);
    EXPECT_NEAR(program->take_loss().sum, want, 1e-5 * std::abs(want));
    if (smoothing > 0) {
      EXPECT_GT(std::abs(want - plain), 1e-3);  // the two are told apart
    }
  }
}

}  // namespace
}  // namespace runner::testing
