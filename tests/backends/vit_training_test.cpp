// The shipped vision transformer (configs/vit_tiny_cifar.yaml) learns: at a quarter of its width
// and two of its blocks, on tiny generated 16x16 images (16 patches and the class token), oneDNN
// in f32 and bf16 (where the CPU has it) lowers its training loss within a few steps.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/onednn/onednn_backend.h"
#include "runner/config/load_config.h"
#include "runner/data/dataset.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/graph.h"
#include "test_support.h"

namespace runner {
namespace {

// The mean loss of each of four epochs of four steps each.
std::vector<double> vit_epoch_losses(Precision precision) {
  const Experiment e = load_experiment(
      testing::source_dir() / "configs" / "vit_tiny_cifar.yaml",
      {"dataset={name: synthetic, synthetic: {channels: 3, height: 16, width: 16, classes: 4, "
       "train_count: 64, test_count: 8}}",
       "model.width=0.25", "model.layers[4].repeat=2", "model.layers[7].out_features=4",
       "training.batch_size=16"});
  const Graph graph = build_graph(e.model, dataset_geometry(e.dataset));
  const DatasetSplits data = load_dataset(e.dataset);
  CompileOptions options;
  options.train_batch = e.training.batch_size;
  options.optimizer = e.training.optimizer;  // AdamW, lr 1e-3, timm's exclusions
  options.normalize = e.dataset.normalize;
  options.precision = precision;
  auto program = onednn::OnednnBackend().compile(graph, options);
  program->load_parameters(initial_parameters(graph, 1));
  const int batch = options.train_batch, steps = static_cast<int>(data.train.size()) / batch;
  std::vector<double> losses;
  for (int epoch = 0; epoch < 4; ++epoch) {
    double sum = 0;
    for (int step = 0; step < steps; ++step) {
      const std::size_t first = static_cast<std::size_t>(step) * batch;
      program->train_step(&data.train.images[first * data.train.image_bytes()],
                          &data.train.labels[first], batch);
      sum += program->take_loss().mean();
    }
    losses.push_back(sum / steps);
  }
  return losses;
}

void expect_vit_learning(const std::vector<double>& losses) {
  for (double loss : losses) EXPECT_TRUE(std::isfinite(loss));
  EXPECT_LT(losses.back(), 0.8 * losses.front())
      << "epoch losses " << ::testing::PrintToString(losses);
}

TEST(VitTraining, TheShippedVitLearnsTheSyntheticData) {
  expect_vit_learning(vit_epoch_losses(Precision::fp32));
}

TEST(VitTraining, TheShippedVitLearnsInBf16) {
  if (!onednn::cpu_precisions().contains(Precision::bf16)) {
    GTEST_SKIP() << "this CPU has no bf16 in oneDNN (needs AVX-512)";
  }
  expect_vit_learning(vit_epoch_losses(Precision::bf16));
}

}  // namespace
}  // namespace runner
