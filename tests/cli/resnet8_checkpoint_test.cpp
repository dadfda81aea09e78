// A checkpoint of configs/resnet8_cifar.yaml, trained on CIFAR-10 files in the real binary format
// (written here: CIFAR-10 cannot be downloaded on these machines), loads into the equivalent
// PyTorch module (scripts/pytorch_peer.py, strict: every parameter and buffer) and scores the
// same test accuracy there.
#include <gtest/gtest.h>

#include "learnable_cifar.h"
#include "test_support.h"

namespace runner::testing {
namespace {

TEST(ResNet8Checkpoint, ReloadsInPyTorchWithTheSameAccuracy) {
  if (run_command("/usr/bin/python3 -c 'import torch, yaml, numpy'").exit_code != 0) {
    GTEST_SKIP() << "no /usr/bin/python3 with torch, yaml and numpy";
  }
  TempDir tmp;
  constexpr int kTestImages = 250;
  write_learnable_cifar10(tmp / "cifar", {100, 100, 100, 100, 100, kTestImages});
  ScoredCheckpoint run = train_and_score(
      tmp, "resnet8_cifar.yaml",
      "--set training.epochs=3 --set training.batch_size=32 --set checkpoint.path=r8.safetensors",
      "pytorch_peer.py evaluate");
  ASSERT_FALSE(HasFatalFailure() || run.scored.is_null());
  const nlohmann::json& report = run.report;
  // The task is learnable, so agreeing means agreeing on most images, not on one class.
  EXPECT_GT(report["metrics"]["test_accuracy"].get<double>(), 0.5) << report["metrics"].dump();
  const nlohmann::json& scored = run.scored;
  // 9 convolution weights (no biases), 9 batch norms of 5 tensors (weight, bias, running mean
  // and variance, num_batches_tracked), the classifier's weight and bias.
  EXPECT_EQ(scored["tensors"], 56);
  // Float rounding may flip an argmax between near-equal logits: one image either way.
  EXPECT_NEAR(scored["test_accuracy"].get<double>(),
              report["metrics"]["test_accuracy"].get<double>(), 1.5 / kTestImages);
}

}  // namespace
}  // namespace runner::testing
