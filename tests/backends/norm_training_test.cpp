// layer_norm and group_norm in a network that learns: a ConvNeXt-style block (depthwise conv,
// layer_norm, pointwise convs with GELU, residual) and a group_norm, written as a config, trained
// on the tiny synthetic dataset on oneDNN in f32 and bf16 (where the CPU has it); its loss falls.
#include <gtest/gtest.h>

#include "backends/onednn/onednn_backend.h"
#include "config_training.h"
#include "test_support.h"

namespace runner::testing {
namespace {

const char* kConfig = R"(name: convnext_block
dataset:
  name: synthetic
  synthetic: {channels: 3, height: 8, width: 8, classes: 4, train_count: 64, test_count: 8}
model:
  layers:
    - {name: stem, type: conv2d, out_channels: 16, kernel: 2, stride: 2}
    - {name: dw, type: conv2d, out_channels: 16, kernel: 3, padding: 1, groups: 16}
    - {name: norm, type: layer_norm}
    - {name: expand, type: conv2d, out_channels: 32, kernel: 1}
    - {name: act, type: gelu}
    - {name: project, type: conv2d, out_channels: 16, kernel: 1}
    - {name: sum, type: add, inputs: [stem, project]}
    - {name: gn, type: group_norm, groups: 4}
    - {name: pool, type: global_avg_pool2d, flatten: true}
    - {name: fc, type: linear, out_features: 4}
training:
  batch_size: 16
  optimizer: {type: adamw, lr: 0.01, weight_decay_exclude: [norm]}
)";

// The mean loss of each of four epochs of four steps each.
std::vector<double> epoch_losses(Precision precision) {
  TempDir dir;
  return onednn_epoch_losses(load_experiment(dir.write("convnext.yaml", kConfig), {}), precision,
                             4);
}

TEST(NormTraining, ConvNextBlockLearnsTheSyntheticData) {
  expect_falling_losses(epoch_losses(Precision::fp32));
}

TEST(NormTraining, ConvNextBlockLearnsInBf16) {
  if (!onednn::cpu_precisions().contains(Precision::bf16)) {
    GTEST_SKIP() << "this CPU has no bf16 in oneDNN (needs AVX-512)";
  }
  expect_falling_losses(epoch_losses(Precision::bf16));
}

}  // namespace
}  // namespace runner::testing
