// training.precision on the GPU (tf32, bf16, fp16) against the CPU's FP32 arithmetic, within
// tolerances derived from each format's rounding, and fp16's dynamic loss scaling: a step with a
// non-finite gradient is skipped and the scale halved. Every test calls GTEST_SKIP() where no GPU
// is usable; a GPU below compute capability 8.0 skips the tf32 and bf16 ones.
#include <gtest/gtest.h>

#include "backends/onednn/onednn_backend.h"
#include "layer_cases.h"
#include "lenet_training.h"

namespace runner::testing {
namespace {

// Unit roundoffs: half the distance from 1 to the next number. bf16 keeps 8 significant bits
// (7 stored), TF32 and fp16 11 (10 stored).
constexpr double kBf16Unit = 0x1p-8;   // 3.9e-3
constexpr double kTf32Unit = 0x1p-11;  // 4.9e-4
constexpr double kFp16Unit = 0x1p-11;

// A value reaching a LeNet weight's gradient is rounded at about 16 places on its way (the
// input, each of the 11 layers' outputs in the forward pass, the logits' gradient and the
// 16-bit gradients flowing back), each adding at most one unit roundoff of relative error to
// first order; the products accumulate in FP32. So the loss and one step's gradients agree with
// FP32 within 16 units of the largest magnitude, and the changes over a few steps (errors of
// successive steps add) within 32; the optimizer state (momentum: sums of the gradients) too.
// An upper bound: the roundings' errors are unsigned and mostly cancel.
constexpr TrainingTolerances tolerances_for(double unit) {
  return {16 * unit, 32 * unit, 32 * unit};
}

OptimizerSpec sgd_momentum() {
  OptimizerSpec s;
  s.type = OptimizerType::sgd;
  s.lr = 0.01;
  s.momentum = 0.9;
  return s;
}

// The GPU can run `precision` (DeviceInfo::precisions), or the reason it cannot.
std::string lacks(const Backend& gpu, Precision precision) {
  const DeviceInfo info = gpu.info();
  if (info.precisions.contains(precision)) return "";
  return info.name + " (compute capability " + info.details.at("compute_capability") +
         ") does not run " + std::string(precision_name(precision));
}

#define REQUIRE_PRECISION(p) \
  REQUIRE_GPU();             \
  if (std::string why = lacks(*gpu, p); !why.empty()) GTEST_SKIP() << why

// A few LeNet steps on the GPU in `precision` against the CPU's FP32 steps.
void expect_training_matches_fp32(Backend& gpu, Precision precision, int steps,
                                  const TrainingTolerances& tolerance) {
  const Graph graph = lenet();
  onednn::OnednnBackend cpu;
  const TrainingRun expected = train(cpu, graph, sgd_momentum(), true, false, steps);
  const TrainingRun actual =
      train(gpu, graph, sgd_momentum(), true, false, steps, 0, false, precision);
  expect_same_training(graph, expected, actual, tolerance);
}

TEST(GpuPrecision, Tf32TrainingMatchesFp32WithinTf32Rounding) {
  REQUIRE_PRECISION(Precision::tf32);
  expect_training_matches_fp32(*gpu, Precision::tf32, kSteps, tolerances_for(kTf32Unit));
}

TEST(GpuPrecision, Bf16TrainingMatchesFp32WithinBf16Rounding) {
  REQUIRE_PRECISION(Precision::bf16);
  expect_training_matches_fp32(*gpu, Precision::bf16, 3, tolerances_for(kBf16Unit));
}

// A 16-bit program's predictions: its weights' mirrors refreshed for evaluation and its 16-bit
// logits widened for the host.
TEST(GpuPrecision, Bf16PredictionsMatchFp32WithinBf16Rounding) {
  REQUIRE_PRECISION(Precision::bf16);
  const Graph graph = lenet();
  const Batch batch = random_batch(graph.input, 6, 21);
  CompileOptions options = options_for(graph, kTrainBatch, 6);
  onednn::OnednnBackend cpu;
  auto reference = cpu.compile(graph, options);
  options.precision = Precision::bf16;
  auto program = gpu->compile(graph, options);
  const auto parameters = initial_parameters(graph, 3);
  reference->load_parameters(parameters);
  program->load_parameters(parameters);
  std::vector<float> expected(6 * 10), actual(6 * 10);
  reference->predict(batch.bytes.data(), 6, expected.data());
  program->predict(batch.bytes.data(), 6, actual.data());
  const double error = relative_error(values_of(actual), values_of(expected));
  EXPECT_LT(error, 16 * kBf16Unit) << "logits: max relative difference " << error;
  // Checkpoints hold the FP32 master weights, not their 16-bit mirrors.
  const auto saved = program->parameters();
  for (std::size_t k = 0; k < saved.size(); ++k) {
    EXPECT_EQ(saved[k].values, parameters[k].values) << saved[k].name;
  }
}

// fp16 with loss scaling, in steps where no gradient overflows: FP32's results within fp16's
// rounding (the same bound as TF32's, whose significand is as long).
TEST(GpuPrecision, Fp16TrainingMatchesFp32WithinFp16Rounding) {
  REQUIRE_PRECISION(Precision::fp16);
  expect_training_matches_fp32(*gpu, Precision::fp16, 3, tolerances_for(kFp16Unit));
}

// Weights too large for half precision make every gradient nan: each step is skipped (weights,
// momentum buffers and the step count as they were) and the scale halves from 65536; sane
// weights then train, with the scale where the skips left it.
TEST(GpuPrecision, Fp16NonFiniteGradientSkipsTheStepAndHalvesTheScale) {
  REQUIRE_PRECISION(Precision::fp16);
  const Graph graph = lenet();
  CompileOptions options = options_for(graph, kTrainBatch, 16);
  options.optimizer = sgd_momentum();
  options.precision = Precision::fp16;
  for (bool cuda_graph : {true, false}) {
    options.cuda_graph = cuda_graph;
    auto program = gpu->compile(graph, options);
    std::vector<HostTensor> huge = initial_parameters(graph, 3);
    for (float& v : huge[0].values) v *= 1e6f;  // conv1.weight: its half mirror is all inf
    ASSERT_EQ(huge[0].name, "conv1.weight");
    program->load_parameters(huge);
    const Batch batch = random_batch(graph.input, kTrainBatch, 9);
    std::vector<std::int32_t> labels(batch.labels);
    for (auto& l : labels) l %= 10;
    for (int step = 0; step < 3; ++step) {
      program->train_step(batch.bytes.data(), labels.data(), kTrainBatch);
    }
    ProgramFacts facts = program->facts();
    EXPECT_EQ(facts.skipped_steps, 3) << "graph " << cuda_graph;
    EXPECT_EQ(facts.loss_scale, 65536.0 / 8) << "graph " << cuda_graph;
    const auto after = program->parameters();
    for (std::size_t k = 0; k < after.size(); ++k) {
      EXPECT_EQ(after[k].values, huge[k].values) << after[k].name << " changed in a skipped step";
    }
    for (const HostTensor& t : program->optimizer_state()) {
      if (t.dtype == TensorDtype::i64) {
        EXPECT_EQ(t.integers.at(0), 0) << "skipped steps are not optimizer steps";
      } else {
        for (float v : t.values) ASSERT_EQ(v, 0.f) << t.name;
      }
    }

    const auto sane = initial_parameters(graph, 3);
    program->load_parameters(sane);
    for (int step = 0; step < 2; ++step) {
      program->train_step(batch.bytes.data(), labels.data(), kTrainBatch);
    }
    facts = program->facts();
    EXPECT_EQ(facts.skipped_steps, 3) << "clean steps at scale 8192 (graph " << cuda_graph << ")";
    EXPECT_EQ(facts.loss_scale, 65536.0 / 8);
    EXPECT_NE(program->parameters()[0].values, sane[0].values) << "clean steps update";
  }
}

// fp32 and tf32 programs report no loss scaling; the CPU never does.
TEST(GpuPrecision, OnlyFp16ReportsLossScaling) {
  REQUIRE_GPU();
  const Graph graph = lenet();
  CompileOptions options = options_for(graph, kTrainBatch, 16);
  EXPECT_EQ(gpu->compile(graph, options)->facts().loss_scale, 0);
  onednn::OnednnBackend cpu;
  EXPECT_EQ(cpu.compile(graph, options)->facts().loss_scale, 0);
  if (lacks(*gpu, Precision::fp16).empty()) {
    options.precision = Precision::fp16;
    EXPECT_EQ(gpu->compile(graph, options)->facts().loss_scale, 65536.0);
  }
}

}  // namespace
}  // namespace runner::testing
