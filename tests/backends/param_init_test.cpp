// How persistent tensors start (ParamSpec::init) and that buffers (trainable false) get no
// optimizer state: the pieces batch norm needs, checked before any layer uses them.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "backends/backend.h"
#include "backends/onednn/param_store.h"

namespace runner {
namespace {

Graph graph_of(std::vector<ParamSpec> specs) {
  Graph graph;
  Node node;
  node.name = "n";
  node.params = std::move(specs);
  graph.nodes.push_back(node);
  return graph;
}

double mean_of(const std::vector<float>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double std_of(const std::vector<float>& v) {
  const double mean = mean_of(v);
  double sum = 0;
  for (float x : v) sum += (x - mean) * (x - mean);
  return std::sqrt(sum / static_cast<double>(v.size()));
}

TEST(ParamInit, EachKindStartsAsPyTorchDoes) {
  ParamSpec uniform{"w", {16, 8, 3, 3}, 72};
  ParamSpec zeros{"b", {16}, 0, ParamInit::zeros};
  ParamSpec ones{"g", {16}, 0, ParamInit::ones};
  ParamSpec kaiming{"k", {64, 32, 3, 3}, 288, ParamInit::kaiming_normal};
  ParamSpec constant{"s", {16}, 0, ParamInit::constant};
  constant.constant = 1e-6;  // scale's default init_value
  auto tensors = initial_parameters(graph_of({uniform, zeros, ones, kaiming, constant}), 7);
  ASSERT_EQ(tensors.size(), 5u);
  const double bound = 1 / std::sqrt(72.0);
  auto [low, high] = std::minmax_element(tensors[0].values.begin(), tensors[0].values.end());
  EXPECT_GE(*low, -bound);
  EXPECT_LE(*high, bound);
  EXPECT_GT(*high, 0.9 * bound);  // it spans the range
  EXPECT_EQ(tensors[1].values, std::vector<float>(16, 0.f));
  EXPECT_EQ(tensors[2].values, std::vector<float>(16, 1.f));
  // kaiming_normal_(mode="fan_out", nonlinearity="relu"): std = sqrt(2 / (64 * 3 * 3)).
  EXPECT_NEAR(std_of(tensors[3].values), std::sqrt(2.0 / 576), 0.03 * std::sqrt(2.0 / 576));
  EXPECT_NEAR(mean_of(tensors[3].values), 0.0, 0.002);
  EXPECT_EQ(tensors[4].values, std::vector<float>(16, 1e-6f));
  EXPECT_EQ(initial_parameters(graph_of({kaiming}), 7)[0].values,
            initial_parameters(graph_of({kaiming}), 7)[0].values);
}

// timm's token embeddings: the class token N(0, 1e-6^2), the position embedding
// trunc_normal_(std=0.02, a=-2, b=2); at a std of 1, the bounds [-2, 2] cut the tails.
TEST(ParamInit, TokenEmbeddingsStartAsTimmsDo) {
  ParamSpec normal{"cls_token", {1, 1, 4096}, 4096, ParamInit::normal};
  normal.stddev = 1e-6;
  ParamSpec truncated{"pos_embed", {1, 64, 64}, 64, ParamInit::truncated_normal};
  truncated.stddev = 0.02;
  ParamSpec wide{"wide", {1, 64, 64}, 64, ParamInit::truncated_normal};
  wide.stddev = 1;
  auto tensors = initial_parameters(graph_of({normal, truncated, wide}), 7);
  EXPECT_NEAR(std_of(tensors[0].values), 1e-6, 0.03e-6);
  EXPECT_NEAR(mean_of(tensors[0].values), 0.0, 0.05e-6);
  EXPECT_NEAR(std_of(tensors[1].values), 0.02, 0.03 * 0.02);
  auto [low, high] = std::minmax_element(tensors[2].values.begin(), tensors[2].values.end());
  EXPECT_GE(*low, -2.f);
  EXPECT_LE(*high, 2.f);
  EXPECT_GT(*high, 1.9f);  // it reaches the bounds
  // The standard deviation of N(0, 1) cut at +-2: sqrt(1 - 4 phi(2) / (2 Phi(2) - 1)) = 0.880.
  EXPECT_NEAR(std_of(tensors[2].values), 0.880, 0.02);
}

TEST(ParamInit, BuffersGetNoOptimizerState) {
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  onednn::ParamStore store(engine);
  onednn::StepList refresh;
  ParamSpec weight{"bn.weight", {4}, 0, ParamInit::ones};
  ParamSpec running{"bn.running_mean", {4}, 0, ParamInit::zeros, false};
  store.value(weight, onednn::plain_desc({4}), refresh);
  store.value(running, onednn::plain_desc({4}), refresh);
  store.allocate_state(2);
  ASSERT_EQ(store.parameters().size(), 2u);
  EXPECT_EQ(store.parameters()[0].state.size(), 2u);
  EXPECT_TRUE(store.parameters()[1].state.empty());
}

}  // namespace
}  // namespace runner
