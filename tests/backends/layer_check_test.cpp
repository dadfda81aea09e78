// Per-layer checks of the oneDNN backend: the reference model's gradients against finite
// differences (double precision), then oneDNN's forward pass and gradients against the reference.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "backends/onednn/onednn_backend.h"
#include "reference_model.h"
#include "runner/util/random.h"

namespace runner::testing {
namespace {

struct LayerCase {
  std::string name;
  Shape input;
  int batch;
  std::vector<LayerSpec> layers;
};

LayerSpec layer(std::string name, std::string type, nlohmann::json attributes = nlohmann::json::object(),
                std::vector<std::string> inputs = {}) {
  LayerSpec spec;
  spec.name = std::move(name);
  spec.type = std::move(type);
  spec.attributes = std::move(attributes);
  spec.inputs = std::move(inputs);
  spec.where.path = "model.layers[" + spec.name + "]";
  return spec;
}

constexpr int kClasses = 5;

std::vector<LayerCase> cases() {
  auto head = [](std::vector<LayerSpec> body) {
    body.push_back(layer("flat", "flatten"));
    body.push_back(layer("fc", "linear", {{"out_features", kClasses}}));
    return body;
  };
  return {
      {"conv", {3, 8, 8}, 2, head({layer("c", "conv2d", {{"out_channels", 4}, {"kernel", 3}})})},
      {"conv_stride_pad_nobias_odd", {2, 7, 9}, 3,
       head({layer("c", "conv2d",
                   {{"out_channels", 5}, {"kernel", {3, 2}}, {"stride", 2}, {"padding", 1}, {"bias", false}})})},
      {"conv_batch1_wide", {1, 6, 6}, 1, head({layer("c", "conv2d", {{"out_channels", 16}, {"kernel", 3}})})},
      {"relu", {2, 6, 6}, 2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}), layer("r", "relu")})},
      {"max_pool", {2, 8, 8}, 2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}),
             layer("p", "max_pool2d", {{"kernel", 2}, {"stride", 2}})})},
      {"max_pool_pad_odd", {2, 9, 7}, 3,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 2}}),
             layer("p", "max_pool2d", {{"kernel", 3}, {"stride", 2}, {"padding", 1}})})},
      {"avg_pool_pad", {2, 9, 9}, 2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 2}}),
             layer("p", "avg_pool2d", {{"kernel", 3}, {"stride", 2}, {"padding", 1}})})},
      {"linear_relu_linear", {2, 4, 4}, 3,
       {layer("flat", "flatten"), layer("h", "linear", {{"out_features", 7}}), layer("r", "relu"),
        layer("fc", "linear", {{"out_features", kClasses}, {"bias", false}})}},
      {"residual_add", {3, 6, 6}, 2,
       head({layer("stem", "conv2d", {{"out_channels", 4}, {"kernel", 3}, {"padding", 1}}),
             layer("r0", "relu"),
             layer("a", "conv2d", {{"out_channels", 4}, {"kernel", 3}, {"padding", 1}}),
             layer("sum", "add", nlohmann::json::object(), {"r0", "a"}), layer("r1", "relu")})},
      {"lenet", {3, 16, 16}, 4,
       {layer("conv1", "conv2d", {{"out_channels", 6}, {"kernel", 5}}), layer("relu1", "relu"),
        layer("pool1", "max_pool2d", {{"kernel", 2}, {"stride", 2}}),
        layer("conv2", "conv2d", {{"out_channels", 16}, {"kernel", 3}}), layer("relu2", "relu"),
        layer("pool2", "max_pool2d", {{"kernel", 2}, {"stride", 2}}), layer("flat", "flatten"),
        layer("fc1", "linear", {{"out_features", 12}}), layer("relu3", "relu"),
        layer("fc3", "linear", {{"out_features", kClasses}})}},
  };
}

void PrintTo(const LayerCase& c, std::ostream* os) { *os << c.name; }

struct Batch {
  std::vector<std::uint8_t> bytes;
  std::vector<std::int32_t> labels;
  Values normalized;  // (byte / 255 - 0.5) / 0.5, as the backend's normalisation
};

Batch random_batch(const Shape& shape, int batch, std::uint64_t seed) {
  Random random(seed);
  Batch b;
  for (std::int64_t i = 0; i < batch * shape.elements(); ++i) {
    b.bytes.push_back(static_cast<std::uint8_t>(random.below(256)));
    b.normalized.push_back((b.bytes.back() / 255.0 - 0.5) / 0.5);
  }
  for (int n = 0; n < batch; ++n) b.labels.push_back(static_cast<std::int32_t>(random.below(kClasses)));
  return b;
}

std::map<std::string, Values> as_values(const std::vector<HostTensor>& tensors) {
  std::map<std::string, Values> values;
  for (const auto& t : tensors) values[t.name] = Values(t.values.begin(), t.values.end());
  return values;
}

// Largest |a - b| relative to the largest |b| (at least 1e-3, to ignore all-zero tensors).
double relative_error(const Values& a, const Values& b) {
  double diff = 0, scale = 1e-3;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

class LayerCheck : public ::testing::TestWithParam<LayerCase> {
 protected:
  void SetUp() override {
    const LayerCase& c = GetParam();
    ModelSpec model;
    model.layers = c.layers;
    graph_ = build_graph(model, c.input, kClasses);
    initial_ = initial_parameters(graph_, 11);
    batch_ = random_batch(c.input, c.batch, 5);
  }

  std::unique_ptr<Program> compile(int train_batch, int eval_batch) {
    CompileOptions options;
    options.train_batch = train_batch;
    options.eval_batch = eval_batch;
    options.optimizer.lr = 1.0;  // p_new = p - grad: the gradient is p - p_new
    options.normalize = {std::vector<float>(graph_.input.c, 0.5f), std::vector<float>(graph_.input.c, 0.5f)};
    auto program = onednn::OnednnBackend().compile(graph_, options);
    program->load_parameters(initial_);
    return program;
  }

  Graph graph_;
  std::vector<HostTensor> initial_;
  Batch batch_;
};

TEST_P(LayerCheck, ReferenceGradientsMatchFiniteDifferences) {
  ReferenceModel model(graph_, as_values(initial_));
  auto analytic = model.gradients(batch_.normalized, batch_.labels);
  const double eps = 1e-6;
  for (auto& [name, values] : model.params()) {
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
  for (int compiled : {batch, batch + 2}) {  // exact batch, and a short batch in a larger program
    auto program = compile(compiled, batch);
    program->train_step(batch_.bytes.data(), batch_.labels.data(), batch);
    LossSum loss = program->take_loss();
    ReferenceModel model(graph_, as_values(initial_));
    EXPECT_NEAR(loss.mean(), model.loss(batch_.normalized, batch_.labels), 1e-5);
    EXPECT_EQ(loss.count, batch);
    auto expected = model.gradients(batch_.normalized, batch_.labels);
    auto before = as_values(initial_);
    for (const auto& tensor : program->parameters()) {
      Values grad(tensor.values.size());
      for (std::size_t i = 0; i < grad.size(); ++i) grad[i] = before[tensor.name][i] - tensor.values[i];
      double error = relative_error(grad, expected.at(tensor.name));
      EXPECT_LT(error, 1e-4) << tensor.name << " (compiled for " << compiled
                             << "): max relative difference " << error;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layers, LayerCheck, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace runner::testing
