// The CPU backend's optimizers against PyTorch: a tiny model (flatten + linear) trained a few
// steps under each SGD, Adam and AdamW configuration (weight_decay_exclude, clip_grad_norm
// included, and a momentum or beta1 changed before each step) must leave the parameters and
// optimizer state that torch.optim leaves, and report the gradient norms clip_grad_norm_
// returned. The numbers are in optimizer_golden.json, written by scripts/optimizer_golden.py, so
// no torch is needed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/onednn/onednn_backend.h"
#include "layer_cases.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

// Float32 arithmetic in a different order than PyTorch's: PyTorch's own float32 numbers are
// within 2.1e-7 of float64 ones here (the file records each case's difference), and the backend
// was within 3.1e-7 of them; a wrong formula misses by 1e-5 or more.
constexpr double kAbsolute = 1e-6, kRelative = 1e-5;

json read_golden() {
  const auto path = source_dir() / "tests" / "backends" / "optimizer_golden.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return json::parse(in);
}

OptimizerSpec optimizer_of(const json& j) {
  OptimizerSpec spec;
  spec.type = optimizer_type_named(j.at("type").get<std::string>()).value();
  spec.lr = j.at("lr").get<double>();
  spec.momentum = j.value("momentum", spec.momentum);
  spec.dampening = j.value("dampening", spec.dampening);
  spec.weight_decay = j.value("weight_decay", default_weight_decay(spec.type));
  for (const auto& kind : j.value("weight_decay_exclude", json::array())) {
    if (kind == "bias") spec.decay_exclude_bias = true;
    if (kind == "norm") spec.decay_exclude_norm = true;
  }
  spec.nesterov = j.value("nesterov", spec.nesterov);
  spec.beta1 = j.value("beta1", spec.beta1);
  spec.beta2 = j.value("beta2", spec.beta2);
  spec.eps = j.value("eps", spec.eps);
  return spec;
}

std::unique_ptr<Program> compile(const json& golden, const Graph& graph, const json& c) {
  CompileOptions options;
  options.optimizer = optimizer_of(c.at("optimizer"));
  options.clip_grad_norm = c.value("clip_grad_norm", 0.0);
  options.train_batch = static_cast<int>(golden.at("batches").at(0).at("labels").size());
  options.eval_batch = options.train_batch;
  options.normalize = {golden.at("normalize").at("mean").get<std::vector<float>>(),
                       golden.at("normalize").at("std").get<std::vector<float>>()};
  auto program = onednn::OnednnBackend().compile(graph, options);
  std::vector<HostTensor> initial;
  for (const auto& [name, tensor] : golden.at("initial").items()) {
    initial.push_back({name, tensor.at("dims").get<std::vector<std::int64_t>>(),
                       tensor.at("values").get<std::vector<float>>()});
  }
  program->load_parameters(initial);
  return program;
}

// A tensor's values as doubles, whichever its dtype (optimizer.step is an int64).
std::vector<double> values_of(const HostTensor& t) {
  if (t.dtype == TensorDtype::i64) return {t.integers.begin(), t.integers.end()};
  return {t.values.begin(), t.values.end()};
}

// Every tensor PyTorch has after a step (parameters, momentum buffers, Adam's moments and step)
// matches the program's of the same name.
void expect_matches(const json& expected, const std::vector<HostTensor>& actual) {
  for (const auto& [key, values] : expected.items()) {
    const std::string& name = key;  // clang 14 lambdas cannot capture structured bindings
    auto found = std::find_if(actual.begin(), actual.end(),
                              [&](const HostTensor& t) { return t.name == name; });
    ASSERT_NE(found, actual.end()) << "the program has no " << name;
    const auto want = values.get<std::vector<double>>();
    const std::vector<double> have = values_of(*found);
    ASSERT_EQ(have.size(), want.size()) << name;
    // The element furthest beyond its tolerance, and the largest difference.
    double max_difference = 0, worst_excess = -INFINITY;
    std::size_t worst = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const double difference = std::abs(have[i] - want[i]);
      const double excess = difference - (kAbsolute + kRelative * std::abs(want[i]));
      max_difference = std::max(max_difference, difference);
      if (excess > worst_excess) worst_excess = excess, worst = i;
    }
    EXPECT_LE(worst_excess, 0) << name << ": max difference " << max_difference << "; worst ["
                               << worst << "] " << have[worst] << ", PyTorch " << want[worst];
  }
}

TEST(OptimizerGolden, CpuBackendStepsAsPyTorch) {
  const json golden = read_golden();
  const json& input = golden.at("input");
  const int classes = golden.at("classes").get<int>();
  ModelSpec model;
  model.layers = {layer("flat", "flatten"), layer("fc", "linear", {{"out_features", classes}})};
  const Shape shape{input.at("channels").get<int>(), input.at("height").get<int>(),
                    input.at("width").get<int>()};
  const Graph graph = build_graph(model, shape, classes);
  ASSERT_GE(golden.at("cases").size(), 21u);
  for (const json& c : golden.at("cases")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    auto program = compile(golden, graph, c);
    const json& steps = c.at("steps");
    ASSERT_EQ(steps.size(), golden.at("batches").size());
    for (std::size_t s = 0; s < steps.size(); ++s) {
      SCOPED_TRACE("after step " + std::to_string(s + 1));
      const json& batch = golden.at("batches")[s];
      const auto images = batch.at("images").get<std::vector<std::uint8_t>>();
      const auto labels = batch.at("labels").get<std::vector<std::int32_t>>();
      if (c.contains("momenta")) program->set_momentum(c.at("momenta")[s].get<double>());
      program->train_step(images.data(), labels.data(), static_cast<int>(labels.size()));
      std::vector<HostTensor> actual = program->parameters();
      for (HostTensor& t : program->optimizer_state()) actual.push_back(std::move(t));
      expect_matches(steps[s], actual);
      const LossSum loss = program->take_loss();
      if (c.contains("grad_norms")) {
        const double norm = c.at("grad_norms")[s].get<double>();
        ASSERT_EQ(loss.grad_norm_count, 1);
        EXPECT_NEAR(loss.grad_norm_mean(), norm, kAbsolute + kRelative * norm);
      } else {
        EXPECT_EQ(loss.grad_norm_count, 0);
      }
      if (::testing::Test::HasFailure()) break;  // later steps of this case only repeat it
    }
  }
}

}  // namespace
}  // namespace runner::testing
