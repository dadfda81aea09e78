// conv2d's groups and dilation and both weighted kinds' `bias: false`, on the graph: shapes,
// parameters and FLOPs against PyTorch's, and the errors of channels or kernels that do not fit.
#include <gtest/gtest.h>

#include "backends/layer_cases.h"
#include "runner/graph/graph.h"

namespace runner {
namespace {

using testing::layer;

ModelSpec model_of(std::vector<LayerSpec> body, double width = 1.0) {
  body.push_back(layer("flat", "flatten"));
  body.push_back(layer("fc", "linear", {{"out_features", 3}}));
  ModelSpec model;
  model.width = width;
  model.layers = std::move(body);
  return model;
}

// The UserError's message, or a failure when there is none.
std::string error_of(const ModelSpec& model, Shape input) {
  try {
    build_graph(model, input, 3);
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(Conv2dOptions, GroupedDilatedShapeParametersAndFlopsMatchPytorch) {
  // torch.nn.Conv2d(8, 12, (3, 5), stride=(2, 1), padding=(1, 2), dilation=(2, 3), groups=4)
  // on 8x17x20: output 12x8x12, weight (12, 2, 3, 5), 372 parameters.
  Graph graph = build_graph(model_of({layer("c", "conv2d",
                                            {{"out_channels", 12},
                                             {"kernel", {3, 5}},
                                             {"stride", {2, 1}},
                                             {"padding", {1, 2}},
                                             {"dilation", {2, 3}},
                                             {"groups", 4}})}),
                            Shape{8, 17, 20}, 3);
  const Node& c = graph.nodes[0];
  EXPECT_EQ(c.output, (Shape{12, 8, 12}));
  EXPECT_EQ(c.params[0].dims, (std::vector<std::int64_t>{12, 2, 3, 5}));
  EXPECT_EQ(c.params[0].fan_in, 2 * 3 * 5);  // PyTorch's: the group's inputs times the kernel
  EXPECT_EQ(c.params[0].elements() + c.params[1].elements(), 372);
  EXPECT_EQ(c.flops, 2 * (12 * 8 * 12) * (2 * 3 * 5) + 12 * 8 * 12);
}

TEST(Conv2dOptions, DepthwiseWithoutBiasHasOneFilterPerChannel) {
  // torch.nn.Conv2d(6, 6, 3, groups=6, bias=False): 54 parameters, output 6x3x3 on 6x5x5.
  Graph graph = build_graph(
      model_of({layer("dw", "conv2d",
                      {{"out_channels", 6}, {"kernel", 3}, {"groups", 6}, {"bias", false}})}),
      Shape{6, 5, 5}, 3);
  ASSERT_EQ(graph.nodes[0].params.size(), 1u);
  EXPECT_EQ(graph.nodes[0].params[0].dims, (std::vector<std::int64_t>{6, 1, 3, 3}));
  EXPECT_EQ(graph.nodes[0].output, (Shape{6, 3, 3}));
}

TEST(Conv2dOptions, LinearWithoutBiasHasWeightsOnly) {
  ModelSpec model;
  model.layers = {layer("flat", "flatten"),
                  layer("fc", "linear", {{"out_features", 3}, {"bias", false}})};
  Graph graph = build_graph(model, Shape{10, 1, 1}, 3);
  ASSERT_EQ(graph.output().params.size(), 1u);
  EXPECT_EQ(graph.parameter_count(), 30);  // torch.nn.Linear(10, 3, bias=False)
  EXPECT_EQ(graph.output().flops, 2 * 10 * 3);
}

TEST(Conv2dOptions, ChannelsNotDivisibleByGroupsNameTheLayer) {
  std::string input_error = error_of(
      model_of({layer("c", "conv2d", {{"out_channels", 6}, {"kernel", 1}, {"groups", 3}})}),
      Shape{4, 5, 5});
  EXPECT_NE(input_error.find("c (conv2d): input 4x5x5 has 4 channels, not divisible by groups 3"),
            std::string::npos)
      << input_error;
  std::string output_error = error_of(
      model_of({layer("c", "conv2d", {{"out_channels", 5}, {"kernel", 1}, {"groups", 2}})}),
      Shape{4, 5, 5});
  EXPECT_NE(output_error.find("model.layers[c].groups"), std::string::npos) << output_error;
  EXPECT_NE(output_error.find("out_channels 5 is not divisible by groups 2"), std::string::npos)
      << output_error;
}

TEST(Conv2dOptions, AWidthThatBreaksDivisibilityNamesTheGroupsField) {
  auto grouped = [](double width) {
    return model_of({layer("c", "conv2d", {{"out_channels", 8}, {"kernel", 1}, {"groups", 4}})},
                    width);
  };
  EXPECT_EQ(build_graph(grouped(0.5), Shape{4, 5, 5}, 3).nodes[0].attrs.out_channels, 4);
  std::string error = error_of(grouped(0.75), Shape{4, 5, 5});  // 8 * 0.75 = 6
  EXPECT_NE(error.find("model.layers[c].groups"), std::string::npos) << error;
  EXPECT_NE(error.find("out_channels 8 times model.width 0.75 = 6 is not divisible by groups 4"),
            std::string::npos)
      << error;
}

TEST(Conv2dOptions, ADilatedKernelLargerThanTheInputIsAShapeError) {
  // kernel 3 with dilation 3 spans 7 pixels; the input has 6 (a 3x3 kernel alone would fit).
  std::string error = error_of(
      model_of({layer("c", "conv2d", {{"out_channels", 2}, {"kernel", 3}, {"dilation", 3}})}),
      Shape{1, 6, 6});
  EXPECT_NE(error.find("c (conv2d): input 1x6x6 is smaller than kernel 3x3 (dilated to 7x7)"),
            std::string::npos)
      << error;
  EXPECT_NO_THROW(build_graph(
      model_of({layer("c", "conv2d", {{"out_channels", 2}, {"kernel", 3}, {"dilation", 3}})}),
      Shape{1, 7, 7}, 3));
}

}  // namespace
}  // namespace runner
