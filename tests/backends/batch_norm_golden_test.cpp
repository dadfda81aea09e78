// batch_norm2d on the CPU backend against PyTorch's BatchNorm2d: the running statistics and the
// checkpoint's num_batches_tracked after three training steps, and an evaluation output with
// them. The numbers were printed by scripts/batch_norm_golden.py (same images: bytes
// (i * 37 + step * 11) % 256).
#include <gtest/gtest.h>

#include "backends/onednn/onednn_backend.h"
#include "layer_cases.h"
#include "runner/train/checkpoint.h"

namespace runner::testing {
namespace {

const std::vector<double> kRunningMean = {-0.0100225882353, 0.0185807058824, -0.0187134117647};
const std::vector<double> kRunningVar = {0.574807968609, 0.558858836653, 0.563355641751};
const std::int64_t kBatchesTracked = 3;
const std::vector<double> kEvalFirstImage = {-0.96436984656, -0.581610000262, -0.198850153965,
                                             0.183909692332, 0.56666953863};

constexpr int kBatch = 4, kSteps = 3, kOutputs = 5;
const Shape kImage{3, 5, 5};

std::vector<std::uint8_t> images(int step) {
  std::vector<std::uint8_t> bytes(kBatch * kImage.elements());
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = (i * 37 + step * 11) % 256;
  return bytes;
}

const HostTensor& named(const std::vector<HostTensor>& tensors, const std::string& name) {
  for (const auto& t : tensors)
    if (t.name == name) return t;
  throw std::runtime_error("no tensor " + name);
}

TEST(BatchNormGolden, RunningStatisticsAndEvaluationMatchPyTorch) {
  ModelSpec model;
  model.layers = {layer("bn", "batch_norm2d", {{"momentum", 0.3}}), layer("flat", "flatten"),
                  layer("fc", "linear", {{"out_features", kOutputs}})};
  Graph graph = build_graph(model, kImage, kOutputs);
  CompileOptions options = options_for(graph, kBatch, kBatch);
  options.optimizer.lr = 1e-3;
  auto program = onednn::OnednnBackend().compile(graph, options);
  program->load_parameters(initial_parameters(graph, 3));
  const std::vector<std::int32_t> labels = {0, 1, 2, 3};
  for (int step = 0; step < kSteps; ++step) {
    program->train_step(images(step).data(), labels.data(), kBatch);
  }
  std::vector<HostTensor> tensors = program->parameters();
  const HostTensor& mean = named(tensors, "bn.running_mean");
  const HostTensor& var = named(tensors, "bn.running_var");
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(mean.values[c], kRunningMean[c], 1e-6) << "channel " << c;
    EXPECT_NEAR(var.values[c], kRunningVar[c], 1e-6) << "channel " << c;
  }
  // The checkpoint holds PyTorch's num_batches_tracked beside them: an int64 scalar.
  const Checkpoint checkpoint = make_checkpoint(*program, Experiment{}, 0, "");
  const HostTensor& tracked = named(checkpoint.tensors, "bn.num_batches_tracked");
  EXPECT_EQ(tracked.dtype, TensorDtype::i64);
  EXPECT_TRUE(tracked.dims.empty());
  EXPECT_EQ(tracked.integers, std::vector<std::int64_t>{kBatchesTracked});
  // The classifier made to read the first values of the batch-norm output: an identity, with
  // batch norm's own weight and bias back at 1 and 0 (PyTorch's layer was not trained).
  for (HostTensor& t : tensors) {
    if (t.name == "fc.weight") {
      std::fill(t.values.begin(), t.values.end(), 0.f);
      for (int k = 0; k < kOutputs; ++k) t.values[k * kImage.elements() + k] = 1.f;
    } else if (t.name == "fc.bias" || t.name == "bn.bias") {
      std::fill(t.values.begin(), t.values.end(), 0.f);
    } else if (t.name == "bn.weight") {
      std::fill(t.values.begin(), t.values.end(), 1.f);
    }
  }
  program->load_parameters(tensors);
  std::vector<float> logits(kBatch * kOutputs);
  program->predict(images(kSteps).data(), kBatch, logits.data());
  for (int k = 0; k < kOutputs; ++k) EXPECT_NEAR(logits[k], kEvalFirstImage[k], 1e-5) << k;
}

}  // namespace
}  // namespace runner::testing
