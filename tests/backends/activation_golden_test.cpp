// The element-wise activations against PyTorch's values and autograd derivatives
// (activation_golden.json, written by scripts/activation_golden.py), at points on every piece
// and exactly on the kinks, where conventions differ between libraries (oneDNN 2.6's hardswish
// passes 0 at -3, PyTorch -1/2; its clip passes 1 at the upper bound, PyTorch's ReLU6 0): the
// GPU kernels' arithmetic (activation_math.h), and the CPU backend and the reference model.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/common/activation_math.h"
#include "backends/onednn/onednn_backend.h"
#include "layer_cases.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using activation_math::Activation;
using nlohmann::json;

json read_activation_golden() {
  const auto path = source_dir() / "tests" / "backends" / "activation_golden.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return json::parse(in);
}

struct GoldenKind {
  const char* golden;  // the kind's name in the golden file
  Activation math;
  const char* type;  // the layer's type and attributes
  json attributes;
};

std::vector<GoldenKind> golden_kinds(double negative_slope) {
  return {
      {"leaky_relu", Activation::leaky_relu, "leaky_relu", {{"negative_slope", negative_slope}}},
      {"gelu", Activation::gelu, "gelu", json::object()},
      {"gelu_tanh", Activation::gelu_tanh, "gelu", {{"approximate", "tanh"}}},
      {"sigmoid", Activation::sigmoid, "sigmoid", json::object()},
      {"tanh", Activation::tanh, "tanh", json::object()},
      {"silu", Activation::silu, "silu", json::object()},
      {"relu6", Activation::relu6, "relu6", json::object()},
      {"hardswish", Activation::hardswish, "hardswish", json::object()},
      {"hardsigmoid", Activation::hardsigmoid, "hardsigmoid", json::object()}};
}

// Float arithmetic against PyTorch's float64 (its float32 1/6 in Hardsigmoid's derivative is
// 3e-8 off); oneDNN's kernels approximate exp and erf a little further, and its gradients pass
// through float sums. A wrong convention at a kink misses by 1/6 or more.
constexpr double kFloatTolerance = 2e-6, kOnednnTolerance = 2e-5;

void expect_near_golden(double value, double golden, const std::string& what,
                        double tolerance = kFloatTolerance) {
  EXPECT_NEAR(value, golden, tolerance * (1 + std::abs(golden))) << what;
}

TEST(ActivationGolden, TheGpuArithmeticIsPyTorchs) {
  const json golden = read_activation_golden();
  const auto& x = golden.at("x");
  const float slope = golden.at("negative_slope").get<float>();
  for (const GoldenKind& kind : golden_kinds(slope)) {
    const json& expected = golden.at("kinds").at(kind.golden);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float v = x[i].get<float>();
      const float y = activation_math::forward(kind.math, v, slope);
      const std::string at = std::string(kind.golden) + " at " + std::to_string(v);
      expect_near_golden(y, expected.at("y")[i].get<double>(), at);
      expect_near_golden(activation_math::derivative(kind.math, v, y, slope),
                         expected.at("dydx")[i].get<double>(), at + ": derivative");
    }
  }
}

// flatten, then a linear layer `at` whose zero weight and bias = the golden points make the
// activation's input exactly those points for every image, then the activation and the
// classifier `fc`. With dz = fc.bias's gradient (the loss's gradient summed over the batch):
// fc.weight's gradient is dz[k] * y[j], and at.bias's is f'(x[j]) * sum_k fc.weight[k][j] dz[k].
class ActivationAtTheKinks : public ::testing::Test {
 protected:
  static Graph graph_for(const GoldenKind& kind, int points) {
    ModelSpec model;
    model.layers = {layer("flat", "flatten"), layer("at", "linear", {{"out_features", points}}),
                    layer("a", kind.type, kind.attributes),
                    layer("fc", "linear", {{"out_features", kClasses}})};
    return build_graph(model, Shape{1, 2, 2}, kClasses);
  }

  static void expect_pytorchs(const std::map<std::string, Values>& grads,
                              const std::map<std::string, Values>& params, const json& expected,
                              const std::string& what, double tolerance) {
    const Values& dz = grads.at("fc.bias");
    const Values& w = params.at("fc.weight");
    const std::size_t points = grads.at("at.bias").size();
    std::size_t k = 0;  // the class with the largest dz, to read y with
    for (std::size_t c = 1; c < dz.size(); ++c) k = std::abs(dz[c]) > std::abs(dz[k]) ? c : k;
    for (std::size_t j = 0; j < points; ++j) {
      double upstream = 0;
      for (std::size_t c = 0; c < dz.size(); ++c) upstream += w[c * points + j] * dz[c];
      ASSERT_GT(std::abs(upstream), 1e-3) << what << ": a point the test cannot see";
      const std::string at = what + " at point " + std::to_string(j);
      expect_near_golden(grads.at("fc.weight")[k * points + j] / dz[k],
                         expected.at("y")[j].get<double>(), at, tolerance);
      expect_near_golden(grads.at("at.bias")[j] / upstream, expected.at("dydx")[j].get<double>(),
                         at + ": derivative", tolerance);
    }
  }
};

TEST_F(ActivationAtTheKinks, OnednnAndTheReferenceTakePyTorchsDerivatives) {
  const json golden = read_activation_golden();
  const auto points = golden.at("x").get<std::vector<double>>();
  const int count = static_cast<int>(points.size());
  for (const GoldenKind& kind : golden_kinds(golden.at("negative_slope").get<double>())) {
    const Graph graph = graph_for(kind, count);
    std::vector<HostTensor> initial = initial_parameters(graph, 11);
    for (HostTensor& tensor : initial) {
      if (tensor.name == "at.weight") std::fill(tensor.values.begin(), tensor.values.end(), 0.f);
      if (tensor.name == "at.bias") tensor.values.assign(points.begin(), points.end());
    }
    const int batch = 2;
    const Batch data = random_batch(graph.input, batch, 5);
    const json& expected = golden.at("kinds").at(kind.golden);

    ReferenceModel reference(graph, as_values(initial));
    expect_pytorchs(reference.gradients(data.normalized, data.labels), as_values(initial), expected,
                    std::string(kind.golden) + " (reference)", kFloatTolerance);

    // SGD with a rate of 2^10 (exact to divide by): p - 1024 grad keeps the gradient's digits
    // where p - grad would round them to p's.
    CompileOptions options = options_for(graph, batch, batch);
    options.optimizer.lr = 1024;
    auto program = onednn::OnednnBackend().compile(graph, options);
    program->load_parameters(initial);
    program->train_step(data.bytes.data(), data.labels.data(), batch);
    std::map<std::string, Values> grads, before = as_values(initial);
    for (const HostTensor& tensor : program->parameters()) {
      Values& grad = grads[tensor.name];
      for (std::size_t i = 0; i < tensor.values.size(); ++i)
        grad.push_back((before[tensor.name][i] - tensor.values[i]) / options.optimizer.lr);
    }
    expect_pytorchs(grads, before, expected, std::string(kind.golden) + " (oneDNN)",
                    kOnednnTolerance);
  }
}

}  // namespace
}  // namespace runner::testing
