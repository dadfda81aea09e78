// concat on the graph: channels or features summed in the order of `inputs`, and the shape
// errors of inputs that cannot be joined.
#include <gtest/gtest.h>

#include "backends/layer_cases.h"
#include "runner/graph/graph.h"

namespace runner {
namespace {

using testing::layer;

ModelSpec joined(std::vector<LayerSpec> branches, std::vector<std::string> inputs) {
  ModelSpec model;
  model.layers = std::move(branches);
  model.layers.push_back(layer("cat", "concat", nlohmann::json::object(), std::move(inputs)));
  model.layers.push_back(layer("flat", "flatten"));
  model.layers.push_back(layer("fc", "linear", {{"out_features", 3}}));
  return model;
}

TEST(Concat, ImagesJoinAlongChannels) {
  Graph graph = build_graph(
      joined({layer("a", "conv2d", {{"out_channels", 5}, {"kernel", 3}, {"padding", 1}}),
              layer("b", "conv2d", {{"out_channels", 7}, {"kernel", 1}}, {"input"})},
             {"b", "input", "a"}),
      Shape{2, 6, 4}, 3);
  const Node& cat = graph.nodes[2];
  ASSERT_EQ(cat.type, "concat");
  EXPECT_EQ(cat.output, (Shape{7 + 2 + 5, 6, 4}));
  EXPECT_EQ(cat.inputs[1], kDataInput);
  EXPECT_TRUE(cat.params.empty());
}

TEST(Concat, FlatInputsJoinTheirFeatures) {
  ModelSpec model;
  model.layers = {layer("flat", "flatten"), layer("h", "linear", {{"out_features", 4}}),
                  layer("cat", "concat", nlohmann::json::object(), {"h", "flat"}),
                  layer("fc", "linear", {{"out_features", 3}})};
  Graph graph = build_graph(model, Shape{2, 3, 3}, 3);
  EXPECT_EQ(graph.nodes[2].output, (Shape{4 + 18, 1, 1, true}));
}

TEST(Concat, MismatchedInputsAreShapeErrorsNamingTheLayer) {
  auto error_of = [](const ModelSpec& model) {
    try {
      build_graph(model, Shape{2, 6, 6}, 3);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string sizes = error_of(
      joined({layer("a", "conv2d", {{"out_channels", 4}, {"kernel", 3}})}, {"a", "input"}));
  EXPECT_NE(sizes.find("cat (concat): inputs must all be flat or all images of one height and "
                       "width: input 1 is 4x4x4, input 2 is 2x6x6"),
            std::string::npos)
      << sizes;
  std::string mixed = error_of(joined({layer("f", "flatten")}, {"input", "f"}));
  EXPECT_NE(mixed.find("input 1 is 2x6x6, input 2 is 72"), std::string::npos) << mixed;
  std::string one = error_of(joined({}, {"input"}));
  EXPECT_NE(one.find("2 to 8"), std::string::npos) << one;
}

}  // namespace
}  // namespace runner
