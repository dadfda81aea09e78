// Per-layer checks of the oneDNN backend: the reference model's gradients against finite
// differences (double precision), then oneDNN's forward pass and gradients against the reference.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "layer_fixture.h"
#include "reference_model.h"
#include "runner/util/random.h"

namespace runner::testing {
namespace {

using LayerCheck = OnednnLayerTest;

TEST_P(LayerCheck, ReferenceGradientsMatchFiniteDifferences) {
  ReferenceModel model(graph_, as_values(initial_));
  auto analytic = model.gradients(batch_.normalized, batch_.labels);
  const double eps = 1e-6;
  for (auto& [name, values] : model.params()) {
    if (!analytic.count(name)) continue;  // a buffer (running statistics): no gradient
    const Values& grad = analytic.at(name);
    std::size_t stride = std::max<std::size_t>(1, values.size() / 25);  // about 25 probes each
    for (std::size_t i = 0; i < values.size(); i += stride) {
      double saved = values[i];
      values[i] = saved + eps;
      double up = model.loss(batch_.normalized, batch_.labels);
      values[i] = saved - eps;
      double down = model.loss(batch_.normalized, batch_.labels);
      values[i] = saved;
      double numeric = (up - down) / (2 * eps);
      EXPECT_NEAR(grad[i], numeric, 1e-6 + 1e-5 * std::abs(numeric)) << name << "[" << i << "]";
    }
  }
}

TEST_P(LayerCheck, OnednnForwardMatchesReference) {
  const int batch = GetParam().batch;
  auto program = compile(batch, batch + 1);  // an eval batch larger than the data: padded
  std::vector<float> logits(batch * kClasses);
  program->predict(batch_.bytes.data(), batch, logits.data());
  Values expected = ReferenceModel(graph_, as_values(initial_)).logits(batch_.normalized, batch);
  double error = relative_error(Values(logits.begin(), logits.end()), expected);
  EXPECT_LT(error, 1e-5) << "max relative difference " << error;
}

TEST_P(LayerCheck, OnednnGradientsMatchReference) {
  const int batch = GetParam().batch;
  // The exact batch, a short batch in a larger program, and the batch in chunks of two images
  // whose gradients are summed (with a short last chunk when the batch is odd).
  struct Variant {
    int compiled, max_chunk;
  };
  for (auto [compiled, max_chunk] :
       {Variant{batch, 128}, Variant{batch + 2, 128}, Variant{batch, 2}}) {
    auto program = compile(compiled, batch, max_chunk);
    program->train_step(batch_.bytes.data(), batch_.labels.data(), batch);
    LossSum loss = program->take_loss();
    ReferenceModel model(graph_, as_values(initial_));
    EXPECT_NEAR(loss.mean(), model.loss(batch_.normalized, batch_.labels), 1e-5);
    EXPECT_EQ(loss.count, batch);
    auto expected = model.gradients(batch_.normalized, batch_.labels);
    auto buffers = model.buffers_after_step(batch_.normalized, batch);
    auto before = as_values(initial_);
    for (const auto& tensor : program->parameters()) {
      if (buffers.count(tensor.name)) {  // batch norm's running statistics, after the step
        double error = relative_error(Values(tensor.values.begin(), tensor.values.end()),
                                      buffers[tensor.name]);
        EXPECT_LT(error, 1e-5) << tensor.name << " (compiled for " << compiled << ")";
        continue;
      }
      Values grad(tensor.values.size());
      for (std::size_t i = 0; i < grad.size(); ++i)
        grad[i] = before[tensor.name][i] - tensor.values[i];
      double error = relative_error(grad, expected.at(tensor.name));
      EXPECT_LT(error, 1e-4) << tensor.name << " (compiled for " << compiled << ", chunks of "
                             << max_chunk << "): max relative difference " << error;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layers, LayerCheck, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace runner::testing
