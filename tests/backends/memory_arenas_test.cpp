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

constexpr int kArenaBatch = 4;

// A shipped config's network on 32x32 RGB images, compiled for kArenaBatch images, for training or
// inference; `every_output` the values of one buffer per layer output, per image.
struct CompiledNet {
  Graph graph;
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  onednn::ParamStore params{engine};
  std::unique_ptr<onednn::Net> net;
  double every_output_bytes = 0;

  CompiledNet(const std::string& config, bool training) {
    const Experiment e = load_experiment(source_dir() / "configs" / config,
                                         {"dataset={name: synthetic, synthetic: {channels: 3, "
                                          "height: 32, width: 32, classes: 10}}"});
    graph = build_graph(e.model, dataset_geometry(e.dataset));
    net = onednn::build_net(graph, engine, kArenaBatch, training, params, {});
    std::int64_t values = 0;
    for (const Node& node : graph.nodes) values += node.output.elements();
    every_output_bytes = static_cast<double>(values) * kArenaBatch * sizeof(float);
  }
};

class MemoryArenasOnShippedNets : public ::testing::TestWithParam<std::string> {};

// Layouts may pad (16-channel blocks), and an arena may leave gaps: a little slack.
TEST_P(MemoryArenasOnShippedNets, ActivationArenaIsThePeakOfLiveOutputs) {
  const CompiledNet c(GetParam(), false);
  ASSERT_TRUE(c.net->activations);
  const double arena = static_cast<double>(c.net->activations->bytes());
  const double live = static_cast<double>(peak_live_values(c.graph)) * kArenaBatch * sizeof(float);
  EXPECT_LE(arena, 1.05 * live) << "arena " << arena << " bytes, peak of live outputs " << live;
  EXPECT_LT(arena, 0.25 * c.every_output_bytes);
}

// At most the estimate: buffers that always hold the same values share one, which the estimate
// does not count.
TEST_P(MemoryArenasOnShippedNets, GradientArenaIsAtMostThePeakOfLiveGradients) {
  const CompiledNet c(GetParam(), true);
  EXPECT_FALSE(c.net->activations) << "a training net keeps every activation for its backward";
  const double arena = static_cast<double>(c.net->gradient_arena.get_desc().get_size());
  const double live =
      static_cast<double>(peak_live_gradients(c.graph)) * kArenaBatch * sizeof(float);
  EXPECT_LE(arena, 1.05 * live) << "arena " << arena << " bytes, peak of live gradients " << live;
  EXPECT_LT(arena, 0.25 * c.every_output_bytes);
}

INSTANTIATE_TEST_SUITE_P(Configs, MemoryArenasOnShippedNets,
                         ::testing::Values("resnet18_cifar.yaml", "mobilenetv2_cifar.yaml",
                                           "vit_tiny_cifar.yaml", "resnet8_cifar.yaml"),
                         [](const auto& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find('.'));
                         });

}  // namespace
}  // namespace runner::testing
