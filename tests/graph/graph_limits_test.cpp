// Sizes beyond what any tensor can hold are UserErrors naming the layer, found in 64-bit
// arithmetic before anything overflows (issue 11: width 600000000 once gave a 1-channel conv).
#include <gtest/gtest.h>

#include "backends/layer_cases.h"
#include "runner/graph/graph.h"
#include "runner/graph/memory_estimate.h"

namespace runner {
namespace {

using testing::layer;

std::string build_error(const ModelSpec& model, Shape input, int classes) {
  try {
    build_graph(model, input, classes);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(GraphLimits, WidthTimesChannelsBeyondTheLimitNamesTheField) {
  ModelSpec model;
  model.width = 1024;
  model.layers = {layer("conv1", "conv2d", {{"out_channels", 1 << 20}, {"kernel", 1}}),
                  layer("flat", "flatten"), layer("fc", "linear", {{"out_features", 2}})};
  std::string message = build_error(model, Shape{1, 2, 2}, 2);
  EXPECT_NE(message.find("out_channels"), std::string::npos) << message;
  EXPECT_NE(message.find("more than the 16777216 a layer may have"), std::string::npos) << message;
}

TEST(GraphLimits, ParameterTensorBeyondTwoToThe31IsRefused) {
  ModelSpec model;  // flatten gives 2^24 features; a 2^20-output linear needs 2^44 weights
  model.layers = {layer("flat", "flatten"), layer("fc", "linear", {{"out_features", 1 << 20}}),
                  layer("out", "linear", {{"out_features", 2}})};
  std::string message = build_error(model, Shape{64, 512, 512}, 2);
  EXPECT_NE(message.find("fc (linear): its parameter fc.weight of shape (1048576, 16777216) holds "
                         "more than 2147483647 values"),
            std::string::npos)
      << message;
}

TEST(GraphLimits, LayerOutputBeyondTheLimitIsRefused) {
  ModelSpec model;  // 4096 channels of 1024x1024: 2^32 values per image
  model.layers = {layer("conv1", "conv2d", {{"out_channels", 4096}, {"kernel", 1}}),
                  layer("flat", "flatten"), layer("fc", "linear", {{"out_features", 2}})};
  std::string message = build_error(model, Shape{1, 1024, 1024}, 2);
  EXPECT_NE(message.find("conv1 (conv2d): its output 4096x1024x1024 holds 4294967296 values per "
                         "image"),
            std::string::npos)
      << message;
}

TEST(GraphLimits, HugeInputIsRefused) {
  ModelSpec model;
  model.layers = {layer("flat", "flatten"), layer("fc", "linear", {{"out_features", 2}})};
  std::string message = build_error(model, Shape{1024, 16384, 16384}, 2);
  EXPECT_NE(message.find("images of 274877906944 values"), std::string::npos) << message;
}

TEST(GraphLimits, MemoryEstimateSaturatesInsteadOfWrapping) {
  ModelSpec model;  // 4096 layers at the output limit times the largest batch: beyond 2^63 bytes
  model.layers.push_back(layer("conv0", "conv2d", {{"out_channels", 1024}, {"kernel", 1}}));
  for (int i = 1; i < 4000; ++i) model.layers.push_back(layer("r" + std::to_string(i), "relu"));
  model.layers.push_back(layer("pool", "avg_pool2d", {{"kernel", 1024}}));
  model.layers.push_back(layer("flat", "flatten"));
  model.layers.push_back(layer("fc", "linear", {{"out_features", 2}}));
  Graph graph = build_graph(model, Shape{1, 1024, 1024}, 2);
  MemoryEstimate estimate = estimate_training_memory(graph, 1 << 20, 1 << 20, OptimizerSpec{});
  EXPECT_GT(estimate.activations, 0);
  EXPECT_EQ(estimate.total(), std::numeric_limits<std::int64_t>::max());
}

}  // namespace
}  // namespace runner
