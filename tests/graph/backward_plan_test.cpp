// The backward plan both backends run: gradients only where parameters lie upstream, written in
// place for a single reader, one buffer per reader and a sum for an output read several times.
#include "runner/graph/backward_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "backends/layer_cases.h"

namespace runner {
namespace {

using testing::layer;

// input -> relu0 (no parameters upstream) -> conv1 -> {relu_a, relu_b} -> add -> flat -> fc
Graph residual_graph() {
  ModelSpec model;
  model.layers = {layer("relu0", "relu"),
                  layer("conv1", "conv2d", {{"out_channels", 2}, {"kernel", 1}}),
                  layer("relu_a", "relu", {}, {"conv1"}),
                  layer("relu_b", "relu", {}, {"conv1"}),
                  layer("sum", "add", {}, {"relu_a", "relu_b", "relu_a"}),
                  layer("flat", "flatten"),
                  layer("fc", "linear", {{"out_features", 3}})};
  return build_graph(model, Shape{1, 4, 4}, 3);
}

int index_of(const Graph& graph, const std::string& name) {
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].name == name) return static_cast<int>(i);
  }
  throw std::logic_error("no node " + name);
}

TEST(BackwardPlan, NodesWithoutParametersUpstreamGetNoGradient) {
  Graph graph = residual_graph();
  BackwardPlan plan = plan_backward(graph);
  const int relu0 = index_of(graph, "relu0"), conv1 = index_of(graph, "conv1");
  EXPECT_FALSE(plan.needs_gradient[relu0]);
  EXPECT_EQ(plan.output_gradient[relu0], kNoGradient);
  EXPECT_TRUE(plan.needs_gradient[conv1]);
  // conv1's step writes no input gradient: relu0 needs none.
  for (const BackwardStep& step : plan.steps) {
    EXPECT_NE(step.node, relu0);
    if (step.node == conv1) EXPECT_EQ(step.input_gradients, std::vector<int>{kNoGradient});
  }
}

TEST(BackwardPlan, StepsRunInReverseOrderAndSumOutputsReadSeveralTimes) {
  Graph graph = residual_graph();
  BackwardPlan plan = plan_backward(graph);
  const int conv1 = index_of(graph, "conv1"), relu_a = index_of(graph, "relu_a"),
            relu_b = index_of(graph, "relu_b"), sum = index_of(graph, "sum"),
            flat = index_of(graph, "flat");
  ASSERT_EQ(plan.steps.size(), graph.nodes.size() - 1);  // all but relu0
  for (std::size_t k = 1; k < plan.steps.size(); ++k) {
    EXPECT_LT(plan.steps[k].node, plan.steps[k - 1].node);
  }
  auto step_of = [&](int node) {
    for (const auto& step : plan.steps) {
      if (step.node == node) return step;
    }
    throw std::logic_error("no step");
  };
  // flat is read once: the fc step writes straight into flat's own gradient.
  EXPECT_TRUE(step_of(flat).summed.empty());
  EXPECT_EQ(step_of(index_of(graph, "fc")).input_gradients,
            std::vector<int>{plan.output_gradient[flat]});
  // sum reads relu_a twice: two contribution buffers shaped like relu_a, summed before relu_a.
  BackwardStep sum_step = step_of(sum);
  ASSERT_EQ(sum_step.input_gradients.size(), 3u);
  EXPECT_NE(sum_step.input_gradients[0], plan.output_gradient[relu_a]);
  EXPECT_NE(sum_step.input_gradients[0], sum_step.input_gradients[2]);
  EXPECT_EQ(sum_step.input_gradients[1], plan.output_gradient[relu_b]);  // read once
  EXPECT_EQ(step_of(relu_a).summed,
            (std::vector<int>{sum_step.input_gradients[0], sum_step.input_gradients[2]}));
  EXPECT_EQ(plan.buffer_shape_of[sum_step.input_gradients[0]], relu_a);
  // conv1 is read by relu_a and relu_b: their steps write separate buffers, summed for conv1.
  BackwardStep conv_step = step_of(conv1);
  ASSERT_EQ(conv_step.summed.size(), 2u);
  EXPECT_EQ(step_of(relu_b).input_gradients, std::vector<int>{conv_step.summed[0]});
  EXPECT_EQ(step_of(relu_a).input_gradients, std::vector<int>{conv_step.summed[1]});
  EXPECT_EQ(plan.buffer_shape_of[conv_step.summed[0]], conv1);
}

// Squeeze-and-excitation: mul reads the features and a flat gate made from them; its step sends
// a gradient to each, shaped as each (the gate's a flat C), and the features' two contributions
// (through the gate and directly) are summed.
TEST(BackwardPlan, MulSendsAGradientToBothInputs) {
  ModelSpec model;
  model.layers = {layer("c", "conv2d", {{"out_channels", 4}, {"kernel", 1}}),
                  layer("pool", "global_avg_pool2d", {{"flatten", true}}),
                  layer("excite", "linear", {{"out_features", 4}}),
                  layer("gate", "sigmoid"),
                  layer("se", "mul", {}, {"c", "gate"}),
                  layer("flat", "flatten"),
                  layer("fc", "linear", {{"out_features", 3}})};
  Graph graph = build_graph(model, Shape{2, 4, 4}, 3);
  BackwardPlan plan = plan_backward(graph);
  const int c = index_of(graph, "c"), gate = index_of(graph, "gate"), se = index_of(graph, "se"),
            pool = index_of(graph, "pool");
  BackwardStep se_step, c_step;
  for (const BackwardStep& step : plan.steps) {
    if (step.node == se) se_step = step;
    if (step.node == c) c_step = step;
  }
  ASSERT_EQ(se_step.input_gradients.size(), 2u);
  EXPECT_EQ(plan.buffer_shape_of[se_step.input_gradients[0]], c);
  EXPECT_EQ(se_step.input_gradients[1], plan.output_gradient[gate]);  // gate is read once
  ASSERT_EQ(c_step.summed.size(), 2u);
  EXPECT_NE(std::find(c_step.summed.begin(), c_step.summed.end(), se_step.input_gradients[0]),
            c_step.summed.end());
  EXPECT_TRUE(plan.needs_gradient[pool]);
}

}  // namespace
}  // namespace runner
