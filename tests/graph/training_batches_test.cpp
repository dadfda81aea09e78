// A batch norm trained on one value per channel (one image on 1x1 maps, in a full batch or a
// short last one) is refused with the layer, its input and training.batch_size named.
#include "runner/graph/training_batches.h"

#include <gtest/gtest.h>

#include "backends/layer_cases.h"

namespace runner {
namespace {

using testing::layer;

// conv, then batch norm on `pooled` 1x1 maps (after a global average pool) or on 6x6 maps.
Graph net(bool pooled) {
  ModelSpec model;
  model.layers = {layer("conv", "conv2d", {{"out_channels", 4}, {"kernel", 3}})};
  if (pooled) model.layers.push_back(layer("pool", "global_avg_pool2d"));
  model.layers.push_back(layer("bn", "batch_norm2d"));
  model.layers.push_back(layer("flat", "flatten"));
  model.layers.push_back(layer("fc", "linear", {{"out_features", 3}}));
  return build_graph(model, Shape{1, 8, 8}, 3);
}

std::string refusal(const Graph& graph, int batch_size, std::int64_t images) {
  try {
    check_training_batches(graph, batch_size, images);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(TrainingBatches, ABatchOfOneImageOnOneByOneMapsIsRefused) {
  const std::string message = refusal(net(true), 1, 100);
  EXPECT_NE(message.find("bn (batch_norm2d): training.batch_size 1 gives it batches of 1 image, "
                         "and its input 4x1x1 then has 1 value per channel in training, expected "
                         "more than 1"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("use a training.batch_size of 2 or more"), std::string::npos) << message;
}

TEST(TrainingBatches, AShortLastBatchOfOneImageIsRefused) {
  const std::string message = refusal(net(true), 16, 1025);
  EXPECT_NE(message.find("the 1025 training images in batches of training.batch_size 16 end with "
                         "a batch of 1 image"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("(one that does not divide 1024)"), std::string::npos) << message;
  EXPECT_NE(refusal(net(true), 16, 1).find("the training set holds 1 image"), std::string::npos);
}

TEST(TrainingBatches, TwoValuesPerChannelAreEnough) {
  EXPECT_EQ(refusal(net(true), 2, 100), "");    // batches of 2 images
  EXPECT_EQ(refusal(net(true), 16, 1024), "");  // no short batch
  EXPECT_EQ(refusal(net(true), 16, 1026), "");  // a short batch of 2
  EXPECT_EQ(refusal(net(true), 16, 2), "");     // one batch of both images
  EXPECT_EQ(refusal(net(false), 1, 101), "");   // 36 values per channel in each image
  EXPECT_EQ(refusal(net(true), 16, 0), "");     // no images: refused elsewhere
}

}  // namespace
}  // namespace runner
