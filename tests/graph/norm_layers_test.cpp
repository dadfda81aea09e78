// layer_norm and group_norm on the graph: shapes, PyTorch's parameter names and sizes, FLOPs, no
// batch statistics, and the checks the schema cannot make (groups dividing the channels, also
// after model.width; eps above 0) as errors naming the layer and its line.
#include <gtest/gtest.h>

#include "backends/layer_cases.h"
#include "graph_error.h"
#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

using testing::graph_error;
using testing::layer;

// `body` on `input`, then a flatten and a 3-way classifier.
ModelSpec with_classifier(std::vector<LayerSpec> body) {
  body.push_back(layer("flat", "flatten"));
  body.push_back(layer("fc", "linear", {{"out_features", 3}}));
  ModelSpec model;
  model.layers = std::move(body);
  return model;
}

TEST(NormLayers, ParametersAreNamedAndSizedAsPytorchsAndMarkedNormalization) {
  // nn.LayerNorm(6) / nn.GroupNorm(3, 6): weight (6) of ones and bias (6) of zeros each.
  Graph graph = build_graph(
      with_classifier({layer("c", "conv2d", {{"out_channels", 6}, {"kernel", 1}}),
                       layer("ln", "layer_norm"), layer("gn", "group_norm", {{"groups", 3}})}),
      Shape{2, 5, 4}, 3);
  for (int i : {1, 2}) {
    const Node& node = graph.nodes[i];
    EXPECT_EQ(node.output, (Shape{6, 5, 4}));
    ASSERT_EQ(node.params.size(), 2u) << node.name;
    EXPECT_EQ(node.params[0].name, node.name + ".weight");
    EXPECT_EQ(node.params[1].name, node.name + ".bias");
    for (const ParamSpec& p : node.params) {
      EXPECT_EQ(p.dims, (std::vector<std::int64_t>{6})) << p.name;
      EXPECT_TRUE(p.trainable && p.normalization) << p.name;  // weight_decay_exclude: [norm]
    }
    EXPECT_EQ(node.params[0].init, ParamInit::ones);
    EXPECT_EQ(node.params[1].init, ParamInit::zeros);
    EXPECT_EQ(node.flops, 8 * 6 * 5 * 4);
    EXPECT_FALSE(find_layer_kind(node.type, node.where).batch_statistics) << node.type;
  }
}

TEST(NormLayers, WithoutAffineTheyHaveNoParametersAndFlatInputsKeepTheirShape) {
  ModelSpec model;
  model.layers = {layer("flat", "flatten"), layer("h", "linear", {{"out_features", 8}}),
                  layer("ln", "layer_norm", {{"affine", false}, {"eps", 1e-3}}),
                  layer("gn", "group_norm", {{"groups", 4}, {"affine", false}}),
                  layer("fc", "linear", {{"out_features", 3}})};
  Graph graph = build_graph(model, Shape{1, 4, 4}, 3);
  for (int i : {2, 3}) {
    EXPECT_TRUE(graph.nodes[i].params.empty());
    EXPECT_EQ(graph.nodes[i].output, (Shape{8, 1, 1, true}));
    EXPECT_EQ(graph.nodes[i].flops, 6 * 8);
  }
  EXPECT_DOUBLE_EQ(graph.nodes[2].attrs.eps, 1e-3);
  EXPECT_FALSE(graph.nodes[2].attrs.affine);
}

TEST(NormLayers, GroupsThatDoNotDivideTheChannelsNameTheLayerAndItsLine) {
  ModelSpec model = with_classifier({layer("c", "conv2d", {{"out_channels", 6}, {"kernel", 1}}),
                                     layer("gn", "group_norm", {{"groups", 4}})});
  model.layers[1].where = {"net.yaml", "model.layers[1]", 9, 7};
  const std::string message = graph_error(model, Shape{2, 8, 8});
  EXPECT_NE(message.find("net.yaml:9:7: model.layers[1]: gn (group_norm): input 6x8x8 has 6 "
                         "channels, not divisible by groups 4"),
            std::string::npos)
      << message;
  // model.width scales the channels, not the groups: 8 channels at width 0.75 are 6.
  model.layers[0].attributes["out_channels"] = 8;
  EXPECT_NO_THROW(build_graph(model, Shape{2, 8, 8}, 3));
  model.width = 0.75;
  EXPECT_NE(graph_error(model, Shape{2, 8, 8}).find("6 channels, not divisible by groups 4"),
            std::string::npos);
}

TEST(NormLayers, EpsMustBeAboveZero) {
  for (const char* type : {"layer_norm", "group_norm"}) {
    const std::string message = graph_error(
        with_classifier({layer("n", type, {{"eps", 0.0}, {"groups", 1}})}), Shape{2, 3, 3});
    EXPECT_NE(message.find(std::string("n (") + type + "): eps 0 must be above 0"),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace runner
