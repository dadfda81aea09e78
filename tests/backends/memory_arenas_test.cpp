// The oneDNN nets' arenas on the shipped networks: the inference net's activations and the
// training net's activation gradients each take the size the estimate gives for the values live
// at once (a few layers' worth), far below a buffer per layer output. (That the reuse computes
// the right numbers is checked per layer kind by LayerCheck's forward and gradient comparisons
// with the reference, whose nets are built the same way.)
#include <gtest/gtest.h>

#include "backends/onednn/net.h"
#include "runner/config/load_config.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/memory_estimate.h"
#include "test_support.h"

namespace runner::testing {
namespace {

class MemoryArenasOnShippedNets : public ::testing::TestWithParam<std::string> {};

TEST_P(MemoryArenasOnShippedNets, HoldsAboutThePeakOfLiveOutputs) {
  const Experiment e = load_experiment(
      source_dir() / "configs" / GetParam(),
      {"dataset={name: synthetic, synthetic: {channels: 3, height: 32, width: 32, classes: 10}}"});
  const Graph graph = build_graph(e.model, dataset_geometry(e.dataset));
  constexpr int kBatch = 4;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  onednn::ParamStore params(engine);
  const auto net = onednn::build_net(graph, engine, kBatch, false, params, {});
  ASSERT_TRUE(net->activations);

  std::int64_t every_output = 0;
  for (const Node& node : graph.nodes) every_output += node.output.elements();
  const double pool = static_cast<double>(net->activations->bytes());
  const double live = static_cast<double>(peak_live_values(graph)) * kBatch * sizeof(float);
  // Layouts may pad (16-channel blocks), and an arena may leave gaps: a little slack.
  EXPECT_LE(pool, 1.05 * live) << "pool " << pool << " bytes, peak of live outputs " << live;
  EXPECT_LT(pool, 0.25 * every_output * kBatch * sizeof(float));
}

INSTANTIATE_TEST_SUITE_P(Configs, MemoryArenasOnShippedNets,
                         ::testing::Values("resnet18_cifar.yaml", "mobilenetv2_cifar.yaml",
                                           "vit_tiny_cifar.yaml", "resnet8_cifar.yaml"),
                         [](const auto& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find('.'));
                         });

// The training net's activation gradients: one arena of the size the estimate gives for the
// gradients a backward pass keeps live at once (at most; buffers that always hold the same values
// share one, which the estimate does not count), far below one buffer per layer output.
TEST_P(MemoryArenasOnShippedNets, GradientArenaHoldsAtMostThePeakOfLiveGradients) {
  const Experiment e = load_experiment(
      source_dir() / "configs" / GetParam(),
      {"dataset={name: synthetic, synthetic: {channels: 3, height: 32, width: 32, classes: 10}}"});
  const Graph graph = build_graph(e.model, dataset_geometry(e.dataset));
  constexpr int kBatch = 4;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  onednn::ParamStore params(engine);
  const auto net = onednn::build_net(graph, engine, kBatch, true, params, {});
  std::int64_t every_output = 0;
  for (const Node& node : graph.nodes) every_output += node.output.elements();
  const double arena = static_cast<double>(net->gradient_arena.get_desc().get_size());
  const double live = static_cast<double>(peak_live_gradients(graph)) * kBatch * sizeof(float);
  EXPECT_LE(arena, 1.05 * live) << "arena " << arena << " bytes, peak of live gradients " << live;
  EXPECT_LT(arena, 0.25 * every_output * kBatch * sizeof(float));
}

TEST(MemoryArenas, TrainingNetsKeepEveryActivation) {
  const Experiment e = load_experiment(
      source_dir() / "configs" / "resnet8_cifar.yaml",
      {"dataset={name: synthetic, synthetic: {channels: 3, height: 32, width: 32, classes: 10}}"});
  const Graph graph = build_graph(e.model, dataset_geometry(e.dataset));
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  onednn::ParamStore params(engine);
  EXPECT_FALSE(onednn::build_net(graph, engine, 2, true, params, {})->activations);
}

}  // namespace
}  // namespace runner::testing
