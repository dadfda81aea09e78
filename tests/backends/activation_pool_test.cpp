// The inference net's activation memory: on the shipped networks its arena is the size the
// estimate gives for the values a forward pass keeps live at once (a few layers' outputs), far
// below every layer's output, which is what a training net keeps. (That the reuse computes the
// right logits is checked per layer kind by LayerCheck.OnednnForwardMatchesReference, whose nets
// are built the same way.)
#include <gtest/gtest.h>

#include "backends/onednn/net.h"
#include "runner/config/load_config.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/memory_estimate.h"
#include "test_support.h"

namespace runner::testing {
namespace {

class ActivationPoolOnShippedNets : public ::testing::TestWithParam<std::string> {};

TEST_P(ActivationPoolOnShippedNets, HoldsAboutThePeakOfLiveOutputs) {
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

INSTANTIATE_TEST_SUITE_P(Configs, ActivationPoolOnShippedNets,
                         ::testing::Values("resnet18_cifar.yaml", "mobilenetv2_cifar.yaml",
                                           "vit_tiny_cifar.yaml", "resnet8_cifar.yaml"),
                         [](const auto& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find('.'));
                         });

TEST(ActivationPool, TrainingNetsKeepEveryActivation) {
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
