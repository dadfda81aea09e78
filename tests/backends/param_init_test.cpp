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
