// The shipped vision transformer (configs/vit_tiny_cifar.yaml) learns: at a quarter of its width
// and two of its blocks, on tiny generated 16x16 images (16 patches and the class token), oneDNN
// in f32 and bf16 (where the CPU has it) lowers its training loss within a few steps.
#include <gtest/gtest.h>

#include "backends/onednn/onednn_backend.h"
#include "config_training.h"
#include "test_support.h"

namespace runner::testing {
namespace {

// The mean loss of each of four epochs of four steps each (AdamW, lr 1e-3, timm's exclusions).
std::vector<double> vit_epoch_losses(Precision precision) {
  return onednn_epoch_losses(
      load_experiment(
          source_dir() / "configs" / "vit_tiny_cifar.yaml",
          {"dataset={name: synthetic, synthetic: {channels: 3, height: 16, width: 16, classes: 4, "
           "train_count: 64, test_count: 8}}",
           "model.width=0.25", "model.layers[4].repeat=2", "model.layers[7].out_features=4",
           "training.batch_size=16"}),
      precision, 4);
}

TEST(VitTraining, TheShippedVitLearnsTheSyntheticData) {
  expect_falling_losses(vit_epoch_losses(Precision::fp32));
}

TEST(VitTraining, TheShippedVitLearnsInBf16) {
  if (!onednn::cpu_precisions().contains(Precision::bf16)) {
    GTEST_SKIP() << "this CPU has no bf16 in oneDNN (needs AVX-512)";
  }
  expect_falling_losses(vit_epoch_losses(Precision::bf16));
}

}  // namespace
}  // namespace runner::testing
