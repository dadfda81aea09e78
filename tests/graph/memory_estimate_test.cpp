// The memory estimate, counted by hand for a small graph: weights, optimizer state, activations
// and their gradients grow as they should with the batch size and the width.
#include "runner/graph/memory_estimate.h"

#include <gtest/gtest.h>

namespace runner {
namespace {

// 1x4x4 input -> conv 2x3x3 (2x1x2x2 weights + 2 biases) -> max pool 2x1x1 -> flatten 2
// -> linear 3 (3x2 + 3): 19 parameters.
Graph small_graph(double width = 1.0) {
  ModelSpec model;
  model.width = width;
  const std::pair<const char*, nlohmann::json> layers[] = {
      {"conv2d", {{"out_channels", 2}, {"kernel", 2}}},
      {"max_pool2d", {{"kernel", 3}}},
      {"flatten", nlohmann::json::object()},
      {"linear", {{"out_features", 3}}}};
  for (const auto& [type, attributes] : layers) {
    LayerSpec& spec = model.layers.emplace_back();
    spec.name = spec.type = type;  // one layer of each kind: the kind names it
    spec.attributes = attributes;
  }
  return build_graph(model, Shape{1, 4, 4}, 3);
}

TEST(MemoryEstimate, CountsEveryBufferOfATrainingStep) {
  Graph graph = small_graph();
  ASSERT_EQ(graph.parameter_count(), 19);
  OptimizerSpec sgd;
  sgd.momentum = 0.9;
  MemoryEstimate e = estimate_training_memory(graph, 8, 10, sgd);
  const std::int64_t outputs = 18 + 2 + 2 + 3;  // floats per image: conv, pool, flatten, linear
  EXPECT_EQ(e.parameters, 19 * 4);
  EXPECT_EQ(e.gradients, 19 * 4);
  EXPECT_EQ(e.optimizer_state, 19 * 4);  // one momentum buffer
  EXPECT_EQ(e.activations, 8 * (16 + outputs) * 4);
  EXPECT_EQ(e.activation_gradients, 8 * outputs * 4);
  EXPECT_EQ(e.workspaces, 8 * 2 * 4 + (8 + 10) * 16);  // pooling indices, uint8 batches
  EXPECT_EQ(e.evaluation, 10 * (16 + outputs) * 4);
  EXPECT_EQ(e.total(), e.parameters + e.gradients + e.optimizer_state + e.activations +
                           e.activation_gradients + e.workspaces + e.evaluation);
}

// Evaluated with each output freed after its last reader (the oneDNN backend): the input and the
// conv's output together are the peak (16 + 18); a residual branch's input stays live until the
// add that reads it.
TEST(MemoryEstimate, LiveEvaluationOutputsAreThePeakOfThoseStillToBeRead) {
  Graph graph = small_graph();
  EXPECT_EQ(peak_live_values(graph), 16 + 18);
  OptimizerSpec sgd;
  EXPECT_EQ(estimate_training_memory(graph, 8, 10, sgd, Precision::fp32, MemoryReuse::lifetimes)
                .evaluation,
            10 * (16 + 18) * 4);

  ModelSpec model;  // 2x4x4 input -> a (2x4x4) -> b (2x4x4) -> c (2x4x4) -> sum(a, c) -> flat -> fc
  const std::tuple<const char*, const char*, nlohmann::json, std::vector<std::string>> layers[] = {
      {"a", "relu", nlohmann::json::object(), {}},
      {"b", "relu", nlohmann::json::object(), {}},
      {"c", "relu", nlohmann::json::object(), {}},
      {"sum", "add", nlohmann::json::object(), {"a", "c"}},
      {"flat", "flatten", nlohmann::json::object(), {}},
      {"fc", "linear", {{"out_features", 3}}, {}}};
  for (const auto& [name, type, attributes, inputs] : layers) {
    LayerSpec& spec = model.layers.emplace_back();
    spec.name = name;
    spec.type = type;
    spec.attributes = attributes;
    spec.inputs = inputs;
  }
  const Graph residual = build_graph(model, Shape{2, 4, 4}, 3);
  // At c: a (kept for the sum), b and c are live: 3 x 32; at the sum: a, c and the sum.
  EXPECT_EQ(peak_live_values(residual), 3 * 32);
}

// A backward pass with each activation gradient freed after its last reader (the oneDNN
// backend): at the pool's step its input gradient (2) and the conv's (18) are live at once; the
// linear's (3) and the flatten's (2) are dead by then.
TEST(MemoryEstimate, LiveGradientsAreThePeakOfABackwardStep) {
  Graph graph = small_graph();
  EXPECT_EQ(peak_live_gradients(graph), 2 + 18);
  OptimizerSpec sgd;
  const MemoryEstimate e =
      estimate_training_memory(graph, 8, 10, sgd, Precision::fp32, MemoryReuse::lifetimes);
  EXPECT_EQ(e.activation_gradients, 8 * (2 + 18) * 4);
  EXPECT_EQ(e.activations, estimate_training_memory(graph, 8, 10, sgd).activations);
}

// A self_attention's qkv rows, probabilities (twice with dropout) and context, and their
// gradients, beside its output: 2 heads over 4 tokens of 6 features.
TEST(MemoryEstimate, CountsAnAttentionsInnerValues) {
  auto estimate = [](double dropout) {
    ModelSpec model;
    const std::pair<const char*, nlohmann::json> layers[] = {
        {"to_tokens", nlohmann::json::object()},
        {"self_attention", {{"heads", 2}, {"dropout", dropout}}},
        {"token_select", nlohmann::json::object()},
        {"linear", {{"out_features", 3}}}};
    for (const auto& [type, attributes] : layers) {
      LayerSpec& spec = model.layers.emplace_back();
      spec.name = spec.type = type;
      spec.attributes = attributes;
    }
    return estimate_training_memory(build_graph(model, Shape{6, 2, 2}, 3), 8, 10, OptimizerSpec{});
  };
  const std::int64_t outputs = 24 + 24 + 6 + 3;     // to_tokens, attention, select, linear
  const std::int64_t inner = 3 * 24 + 2 * 16 + 24;  // qkv, probabilities, context
  const MemoryEstimate plain = estimate(0), dropped = estimate(0.1);
  EXPECT_EQ(plain.activations, 8 * (24 + outputs + inner) * 4);
  EXPECT_EQ(plain.activation_gradients, 8 * (outputs + inner) * 4);
  EXPECT_EQ(plain.evaluation, 10 * (24 + outputs + inner) * 4);
  EXPECT_EQ(dropped.activations - plain.activations,
            8 * 2 * 16 * 4);  // probabilities after dropout
}

TEST(MemoryEstimate, FollowsTheOptimizerTheBatchAndTheWidth) {
  Graph graph = small_graph();
  OptimizerSpec plain_sgd, adam;
  adam.type = OptimizerType::adam;
  EXPECT_EQ(estimate_training_memory(graph, 8, 10, plain_sgd).optimizer_state, 0);
  EXPECT_EQ(estimate_training_memory(graph, 8, 10, adam).optimizer_state, 2 * 19 * 4);
  auto small = estimate_training_memory(graph, 8, 10, plain_sgd);
  auto large = estimate_training_memory(graph, 800, 10, plain_sgd);
  EXPECT_EQ(large.activations, 100 * small.activations);
  EXPECT_EQ(large.parameters, small.parameters);
  auto wide = estimate_training_memory(small_graph(2.0), 8, 10, plain_sgd);
  EXPECT_GT(wide.parameters, small.parameters);
  EXPECT_GT(wide.activations, small.activations);
}

TEST(MemoryEstimate, MixedPrecisionHalvesTheActivationsAndAddsWeightCopies) {
  Graph graph = small_graph();
  OptimizerSpec sgd;
  auto fp32 = estimate_training_memory(graph, 8, 10, sgd);
  auto bf16 = estimate_training_memory(graph, 8, 10, sgd, Precision::bf16);
  EXPECT_EQ(bf16.activations * 2, fp32.activations);
  EXPECT_EQ(bf16.activation_gradients * 2, fp32.activation_gradients);
  EXPECT_EQ(bf16.evaluation * 2, fp32.evaluation);
  EXPECT_EQ(bf16.parameters, 19 * (4 + 2));   // FP32 masters and their bf16 copies
  EXPECT_EQ(bf16.gradients, fp32.gradients);  // weight gradients stay FP32
  EXPECT_EQ(bf16.workspaces, fp32.workspaces);
}

}  // namespace
}  // namespace runner
