// A checkpoint of configs/resnet8_cifar.yaml, trained on CIFAR-10 files in the real binary format
// (written here: CIFAR-10 cannot be downloaded on these machines), loads into the equivalent
// PyTorch module (scripts/pytorch_peer.py, strict: every parameter and buffer) and scores the
// same test accuracy there.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

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
  auto run = run_runner((source_dir() / "configs" / "resnet8_cifar.yaml").string() +
                        " --set device=cpu --set dataset.download=false --set dataset.root=" +
                        (tmp / "cifar").string() +
                        " --set training.epochs=3 --set training.batch_size=32"
                        " --set checkpoint.path=r8.safetensors --quiet"
                        " --output " +
                        (tmp / "out").string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = nlohmann::json::parse(std::ifstream(report_path_in(run.output)));
  // The peer reads the run's resolved config (JSON is YAML), overrides included.
  std::ofstream(tmp / "resolved.json") << report["config"].dump();
  auto peer = run_command(
      "/usr/bin/python3 " + (source_dir() / "scripts" / "pytorch_peer.py").string() + " evaluate " +
      (tmp / "resolved.json").string() + " " + report["checkpoint"]["path"].get<std::string>());
  ASSERT_EQ(peer.exit_code, 0) << peer.output;
  // The task is learnable, so agreeing means agreeing on most images, not on one class.
  EXPECT_GT(report["metrics"]["test_accuracy"].get<double>(), 0.5) << report["metrics"].dump();
  const auto scored = nlohmann::json::parse(peer.output);
  // 9 convolution weights (no biases), 9 batch norms of 5 tensors (weight, bias, running mean
  // and variance, num_batches_tracked), the classifier's weight and bias.
  EXPECT_EQ(scored["tensors"], 56);
  // Float rounding may flip an argmax between near-equal logits: one image either way.
  EXPECT_NEAR(scored["test_accuracy"].get<double>(),
              report["metrics"]["test_accuracy"].get<double>(), 1.5 / kTestImages);
}

}  // namespace
}  // namespace runner::testing
