// Graph building: shapes, parameters, FLOPs, the width multiplier, ordering and shape errors.
#include "runner/graph/graph.h"

#include <gtest/gtest.h>

#include "backends/layer_cases.h"

namespace runner {

void PrintTo(const Shape& shape, std::ostream* os) {
  *os << shape.str();
}

namespace {

using testing::layer;

ModelSpec lenet(double width = 1.0) {
  ModelSpec model;
  model.width = width;
  model.layers = {layer("conv1", "conv2d", {{"out_channels", 6}, {"kernel", 5}}),
                  layer("relu1", "relu"),
                  layer("pool1", "max_pool2d", {{"kernel", 2}, {"stride", 2}}),
                  layer("conv2", "conv2d", {{"out_channels", 16}, {"kernel", 5}}),
                  layer("relu2", "relu"),
                  layer("pool2", "max_pool2d", {{"kernel", 2}, {"stride", 2}}),
                  layer("flat", "flatten"),
                  layer("fc1", "linear", {{"out_features", 120}}),
                  layer("relu3", "relu"),
                  layer("fc2", "linear", {{"out_features", 84}}),
                  layer("relu4", "relu"),
                  layer("fc3", "linear", {{"out_features", 10}})};
  return model;
}

TEST(Graph, LenetShapesAndParametersMatchThePytorchTutorial) {
  Graph graph = build_graph(lenet(), Shape{3, 32, 32}, 10);
  ASSERT_EQ(graph.nodes.size(), 12u);
  EXPECT_EQ(graph.nodes[0].output, (Shape{6, 28, 28}));
  EXPECT_EQ(graph.nodes[2].output, (Shape{6, 14, 14}));
  EXPECT_EQ(graph.nodes[5].output, (Shape{16, 5, 5}));
  EXPECT_EQ(graph.nodes[6].output, (Shape{400, 1, 1, true}));
  EXPECT_EQ(graph.parameter_count(), 62006);  // sum(p.numel() for p in Net().parameters())
  EXPECT_EQ(graph.nodes[0].params[0].dims, (std::vector<std::int64_t>{6, 3, 5, 5}));
  EXPECT_EQ(graph.nodes[0].params[0].fan_in, 75);
  // conv1: 2 * 6*28*28 outputs * 3*5*5 MACs + bias adds
  EXPECT_EQ(graph.nodes[0].flops, 2 * 6 * 28 * 28 * 75 + 6 * 28 * 28);
}

TEST(Graph, WidthScalesEveryLayerButTheClassifier) {
  Graph graph = build_graph(lenet(2.0), Shape{3, 32, 32}, 10);
  EXPECT_EQ(graph.nodes[0].attrs.out_channels, 12);
  EXPECT_EQ(graph.nodes[3].attrs.out_channels, 32);
  EXPECT_EQ(graph.nodes[7].attrs.out_features, 240);
  EXPECT_EQ(graph.output().attrs.out_features, 10);
  Graph narrow = build_graph(lenet(0.1), Shape{3, 32, 32}, 10);
  EXPECT_EQ(narrow.nodes[0].attrs.out_channels, 1);  // rounded, at least one
}

TEST(Graph, OrdersNodesTopologicallyWhateverTheConfigOrder) {
  ModelSpec model;
  model.layers = {layer("b", "conv2d", {{"out_channels", 2}, {"kernel", 1}}, {"a"}),
                  layer("a", "relu", {}, {"input"}), layer("sum", "add", {}, {"a", "b"}),
                  layer("flat", "flatten"), layer("fc", "linear", {{"out_features", 3}})};
  Graph graph = build_graph(model, Shape{2, 4, 4}, 3);
  std::vector<std::string> order;
  for (const auto& node : graph.nodes) order.push_back(node.name);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "sum", "flat", "fc"}));
  EXPECT_EQ(graph.nodes[2].inputs, (std::vector<int>{0, 1}));
  EXPECT_EQ(graph.nodes[0].inputs, (std::vector<int>{kDataInput}));
}

TEST(Graph, WindowArithmeticFollowsPytorchFloorMode) {
  ModelSpec model;
  model.layers = {layer("c", "conv2d",
                        {{"out_channels", 1}, {"kernel", {3, 2}}, {"stride", 2}, {"padding", 1}}),
                  layer("p", "avg_pool2d", {{"kernel", 3}}), layer("flat", "flatten"),
                  layer("fc", "linear", {{"out_features", 2}})};
  Graph graph = build_graph(model, Shape{1, 7, 9}, 2);
  EXPECT_EQ(graph.nodes[0].output, (Shape{1, 4, 5}));  // (7+2-3)/2+1, (9+2-2)/2+1
  EXPECT_EQ(graph.nodes[1].output, (Shape{1, 1, 1}));  // stride defaults to the kernel: (5-3)/3+1
}

TEST(Graph, ShapeErrorsNameTheLayerAndBothShapes) {
  ModelSpec model = lenet();
  model.layers[3].attributes["kernel"] = 15;
  try {
    build_graph(model, Shape{3, 32, 32}, 10);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("conv2 (conv2d): input 6x14x14"), std::string::npos)
        << e.what();
  }
  model = lenet();
  model.layers[0].attributes["padding"] = 3;  // more than half of kernel 5
  EXPECT_THROW(build_graph(model, Shape{3, 32, 32}, 10), UserError);
}

// mul's second input: the first's shape, or one value per channel of an image (Cx1x1 or flat C);
// anything else names both shapes.
TEST(Graph, MulTakesAGateOfTheInputsShapeOrOneValuePerChannel) {
  auto graph_with_gate = [](nlohmann::json gate_layer_attributes, const std::string& gate_type) {
    ModelSpec model;
    model.layers = {layer("c", "conv2d", {{"out_channels", 4}, {"kernel", 3}}),
                    layer("gate", gate_type, std::move(gate_layer_attributes), {"c"}),
                    layer("se", "mul", nlohmann::json::object(), {"c", "gate"}),
                    layer("flat", "flatten"), layer("fc", "linear", {{"out_features", 2}})};
    return build_graph(model, Shape{3, 8, 8}, 2);
  };
  const nlohmann::json none = nlohmann::json::object();
  EXPECT_EQ(graph_with_gate(none, "sigmoid").nodes[2].output, (Shape{4, 6, 6}));
  EXPECT_EQ(graph_with_gate(none, "global_avg_pool2d").nodes[2].output, (Shape{4, 6, 6}));
  EXPECT_EQ(graph_with_gate({{"flatten", true}}, "global_avg_pool2d").nodes[2].output,
            (Shape{4, 6, 6}));
  try {
    graph_with_gate({{"out_channels", 3}, {"kernel", 6}}, "conv2d");  // 3x1x1: not 4 channels
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("se (mul): input 2 must have input 1's shape or one value "
                                         "per channel of it (4x1x1 or a flat 4): input 1 is "
                                         "4x6x6, input 2 is 3x1x1"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(graph_with_gate({{"kernel", 2}}, "max_pool2d"), UserError);  // 4x3x3
}

// scale's one parameter, named as PyTorch's module attribute `weight`, starts at init_value and
// is what weight_decay_exclude: [norm] leaves undecayed; on images and on flat features.
TEST(Graph, ScaleHasOneWeightPerChannelStartingAtInitValue) {
  ModelSpec model;
  model.layers = {layer("c", "conv2d", {{"out_channels", 5}, {"kernel", 3}}),
                  layer("gamma", "scale", {{"init_value", 0.25}}),
                  layer("flat", "flatten"),
                  layer("h", "linear", {{"out_features", 7}}),
                  layer("gamma2", "scale"),
                  layer("fc", "linear", {{"out_features", 2}})};
  const Graph graph = build_graph(model, Shape{3, 8, 8}, 2);
  const ParamSpec& image = graph.nodes[1].params.at(0);
  EXPECT_EQ(image.name, "gamma.weight");
  EXPECT_EQ(image.dims, std::vector<std::int64_t>{5});
  EXPECT_EQ(image.init, ParamInit::constant);
  EXPECT_DOUBLE_EQ(image.constant, 0.25);
  EXPECT_TRUE(image.trainable && image.normalization);
  EXPECT_EQ(graph.nodes[1].output, (Shape{5, 6, 6}));
  const ParamSpec& flat = graph.nodes[4].params.at(0);
  EXPECT_EQ(flat.dims, std::vector<std::int64_t>{7});
  EXPECT_DOUBLE_EQ(flat.constant, 1e-6);  // ConvNeXt's layer_scale_init_value
  EXPECT_EQ(graph.nodes[4].output, (Shape{7, 1, 1, true}));
}

}  // namespace
}  // namespace runner
