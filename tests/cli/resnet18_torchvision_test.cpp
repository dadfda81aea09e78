// configs/resnet18_cifar.yaml, written with blocks, is torchvision's ResNet-18: a checkpoint the
// runner trains loads into torchvision's own model (scripts/torchvision_models.py, strict: every
// parameter and buffer by name and shape) and scores the runner's test accuracy there. A block
// expanded with a wrong stride, shortcut or wiring would load and score differently.
#include <gtest/gtest.h>

#include "learnable_cifar.h"
#include "test_support.h"

namespace runner::testing {
namespace {

TEST(ResNet18Blocks, ACheckpointScoresTheSameInTorchvisionsResnet18) {
  if (run_command("/usr/bin/python3 -c 'import torch, torchvision, numpy'").exit_code != 0) {
    GTEST_SKIP() << "no /usr/bin/python3 with torch, torchvision and numpy";
  }
  TempDir tmp;
  constexpr int kTestImages = 60;
  write_learnable_cifar10(tmp / "cifar", {48, 0, 0, 0, 0, kTestImages});
  ScoredCheckpoint run = train_and_score(
      tmp, "resnet18_cifar.yaml",
      "--set training.eval_batch_size=60 --set dataset.augment=[] --set training.epochs=2"
      " --set training.batch_size=16 --set training.divergence_threshold=1e30"
      " --set training.optimizer.lr=0.01 --set checkpoint.path=r18.safetensors",
      "torchvision_models.py evaluate resnet18_cifar");
  ASSERT_FALSE(HasFatalFailure() || run.scored.is_null());
  const nlohmann::json& report = run.report;
  const nlohmann::json& scored = run.scored;
  ASSERT_TRUE(report["config"]["model"].contains("blocks"));  // the config as written
  EXPECT_EQ(report["model"]["expanded_layers"].size(), report["model"]["layers"].size());
  // 20 convolutions and the classifier's weight and bias, 20 batch norms of 5 tensors.
  EXPECT_EQ(scored["tensors"], 122);
  // Float rounding may flip an argmax between near-equal logits: one image either way.
  EXPECT_NEAR(scored["test_accuracy"].get<double>(),
              report["metrics"]["test_accuracy"].get<double>(), 1.5 / kTestImages);
}

}  // namespace
}  // namespace runner::testing
