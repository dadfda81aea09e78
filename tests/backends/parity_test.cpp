// Cross-backend parity: the cuDNN backend against the oneDNN backend, per layer case (forward
// logits; parameter gradients from one SGD step with lr 1) and for ten LeNet training steps
// (losses, parameters, optimizer state). Every test calls GTEST_SKIP() where no GPU is usable.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "backends/onednn/onednn_backend.h"
#include "layer_cases.h"
#include "layer_fixture.h"
#include "lenet_training.h"
#include "runner/data/augment.h"
#include "runner/data/augmentation.h"
#include "runner/util/errors.h"

namespace runner::testing {
namespace {

// Tolerances, each relative to the largest magnitude of the CPU's tensor (see relative_error).
// cuDNN runs in float with FMA math (no TF32) but sums in other orders than oneDNN.
constexpr double kLogitsTolerance = 1e-4;
constexpr double kGradientTolerance = 1e-3;
constexpr double kLossTolerance = 1e-5;           // relative to the loss
constexpr double kTrainedChangeTolerance = 2e-3;  // parameter change over ten steps
constexpr double kStateTolerance = 2e-3;          // optimizer buffers after ten steps
constexpr TrainingTolerances kTrainingTolerances = {kLossTolerance * 10, kTrainedChangeTolerance,
                                                    kStateTolerance};

// The layer cases of layer_check_test.cpp, plus larger and odd batches of LeNet-like stacks.
std::vector<LayerCase> parity_cases() {
  auto all = cases();
  for (LayerCase c : cases()) {
    if (c.name == "lenet") {
      c.name = "lenet_batch1";
      c.batch = 1;
      all.push_back(c);
      c.name = "lenet_batch33";
      c.batch = 33;
      all.push_back(c);
    }
    if (c.name == "conv_stride_pad_nobias_odd") {
      c.name = "conv_stride_pad_nobias_odd_batch17";
      c.batch = 17;
      all.push_back(c);
    }
  }
  return all;
}

// The layer case's graph, parameters and batch (layer_fixture.h), compiled on either backend.
class Parity : public OnednnLayerTest {
 protected:
  std::unique_ptr<Program> compile(Backend& backend, int train_batch, int eval_batch) {
    auto program = backend.compile(graph_, options_for(graph_, train_batch, eval_batch));
    program->load_parameters(initial_);
    return program;
  }
};

TEST_P(Parity, ForwardMatchesOnednn) {
  REQUIRE_GPU();
  onednn::OnednnBackend cpu;
  const int batch = GetParam().batch;
  std::vector<float> expected(batch * kClasses), actual(batch * kClasses);
  compile(cpu, batch, batch + 1)->predict(batch_.bytes.data(), batch, expected.data());
  // An eval batch larger than the data: the rest of the batch is padding.
  compile(*gpu, batch, batch + 3)->predict(batch_.bytes.data(), batch, actual.data());
  double error = relative_error(values_of(actual), values_of(expected));
  EXPECT_LT(error, kLogitsTolerance) << "logits: max relative difference " << error;
}

TEST_P(Parity, GradientsMatchOnednn) {
  REQUIRE_GPU();
  onednn::OnednnBackend cpu;
  const int batch = GetParam().batch;
  for (int compiled : {batch, batch + 2}) {  // exact batch, and a short batch in a larger program
    auto reference = compile(cpu, compiled, batch);
    auto program = compile(*gpu, compiled, batch);
    reference->train_step(batch_.bytes.data(), batch_.labels.data(), batch);
    program->train_step(batch_.bytes.data(), batch_.labels.data(), batch);
    LossSum expected_loss = reference->take_loss(), loss = program->take_loss();
    EXPECT_EQ(loss.count, batch);
    EXPECT_NEAR(loss.mean(), expected_loss.mean(), kLossTolerance * std::abs(expected_loss.mean()))
        << "compiled for " << compiled;

    auto before = as_values(initial_);
    auto expected = index_of(reference->parameters());
    for (const auto& tensor : program->parameters()) {
      Values grad(tensor.values.size()), expected_grad(tensor.values.size());
      const auto& cpu_after = expected.at(tensor.name)->values;
      for (std::size_t i = 0; i < grad.size(); ++i) {
        grad[i] = before[tensor.name][i] - tensor.values[i];
        expected_grad[i] = before[tensor.name][i] - cpu_after[i];
      }
      double error = relative_error(grad, expected_grad);
      EXPECT_LT(error, kGradientTolerance) << tensor.name << " gradient (compiled for " << compiled
                                           << "): max relative difference " << error;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layers, Parity, ::testing::ValuesIn(parity_cases()),
                         [](const auto& info) { return info.param.name; });

// ---- Whole training runs of the tutorial's LeNet -------------------------------------------

struct TrainingCase {
  std::string name;
  OptimizerSpec optimizer;
  bool cuda_graph = true;
  double clip_grad_norm = 0;
  bool momentum_per_step = false;  // set_momentum before each step, as cycle_momentum does
};
void PrintTo(const TrainingCase& c, std::ostream* os) {
  *os << c.name;
}

OptimizerSpec sgd(double lr, double momentum, double dampening, double decay, bool nesterov) {
  OptimizerSpec s;
  s.type = OptimizerType::sgd;
  s.lr = lr;
  s.momentum = momentum;
  s.dampening = dampening;
  s.weight_decay = decay;
  s.nesterov = nesterov;
  return s;
}

OptimizerSpec adam(double lr, double decay, OptimizerType type = OptimizerType::adam) {
  OptimizerSpec s;
  s.type = type;
  s.lr = lr;
  s.weight_decay = decay;
  return s;
}

// AdamW with a large decay that leaves the biases alone.
OptimizerSpec adamw_without_bias_decay() {
  OptimizerSpec s = adam(1e-3, 0.5, OptimizerType::adamw);
  s.decay_exclude_bias = true;
  return s;
}

std::vector<TrainingCase> training_cases() {
  return {
      {"sgd_momentum_graph", sgd(0.01, 0.9, 0, 0, false), true},
      {"sgd_momentum_eager", sgd(0.01, 0.9, 0, 0, false), false},
      {"sgd_nesterov_decay_graph", sgd(0.01, 0.9, 0, 5e-4, true), true},
      {"sgd_dampening_graph", sgd(0.02, 0.8, 0.3, 0, false), true},
      {"adam_decay_graph", adam(1e-3, 1e-4), true},
      {"adam_eager", adam(1e-3, 0), false},
      {"adamw_exclude_bias_graph", adamw_without_bias_decay(), true},
      {"adamw_clip_graph", adam(1e-3, 0.01, OptimizerType::adamw), true, 0.05},
      {"sgd_clip_eager", sgd(0.01, 0.9, 0, 0, false), false, 0.05},
      {"sgd_nesterov_cycled_momentum_graph", sgd(0.01, 0.9, 0, 5e-4, true), true, 0, true},
      {"adamw_cycled_beta1_graph", adam(1e-3, 0.01, OptimizerType::adamw), true, 0, true},
  };
}

class TrainingParity : public ::testing::TestWithParam<TrainingCase> {};

TEST_P(TrainingParity, TenLenetStepsMatchOnednn) {
  REQUIRE_GPU();
  const TrainingCase& c = GetParam();
  const Graph graph = lenet();
  onednn::OnednnBackend cpu;
  TrainingRun expected =
      train(cpu, graph, c.optimizer, true, false, kSteps, c.clip_grad_norm, c.momentum_per_step);
  TrainingRun actual = train(*gpu, graph, c.optimizer, c.cuda_graph, false, kSteps,
                             c.clip_grad_norm, c.momentum_per_step);
  expect_same_training(graph, expected, actual, kTrainingTolerances);
  ASSERT_EQ(actual.grad_norms.size(), expected.grad_norms.size());
  EXPECT_EQ(actual.grad_norms.size(), c.clip_grad_norm > 0 ? std::size_t{kSteps} : 0u);
  for (std::size_t s = 0; s < expected.grad_norms.size(); ++s) {
    EXPECT_NEAR(actual.grad_norms[s], expected.grad_norms[s], 1e-4 * expected.grad_norms[s])
        << "gradient norm of step " << s + 1;
  }
}

INSTANTIATE_TEST_SUITE_P(Lenet, TrainingParity, ::testing::ValuesIn(training_cases()),
                         [](const auto& info) { return info.param.name; });

// A training set of 40 random images; ten steps take rows of it (repeats across steps, a short
// last batch), the GPU gathering them from the set it holds, the CPU given them gathered.
struct HeldSet {
  std::vector<std::uint8_t> images;
  std::vector<std::int32_t> labels;
  int count = 40;
};

HeldSet random_set(const Graph& graph) {
  HeldSet set;
  Random random(77);
  set.images.resize(static_cast<std::size_t>(set.count) * graph.input.elements());
  set.labels.resize(set.count);
  for (auto& b : set.images) b = static_cast<std::uint8_t>(random.below(256));
  for (auto& l : set.labels) l = static_cast<std::int32_t>(random.below(10));
  return set;
}

std::vector<std::uint32_t> rows_of_step(int step, int count, int set_count) {
  std::vector<std::uint32_t> rows(count);
  for (int i = 0; i < count; ++i)
    rows[i] = static_cast<std::uint32_t>((step * 7 + i * 13) % set_count);
  return rows;
}

// With `augment`, step s is epoch s: the GPU augments the rows it gathers, the CPU is given them
// augmented on the host (runner/data/augment.cpp), both by augment_math.
TrainingRun train_on_rows(Backend& backend, const Graph& graph, const HeldSet& set,
                          const CompileOptions& options, bool give_rows,
                          const augment_math::Plan& augment = {}) {
  auto program = backend.compile(graph, options);
  program->load_parameters(initial_parameters(graph, 3));
  if (give_rows) {
    EXPECT_TRUE(
        program->hold_training_set({set.images.data(), set.labels.data(), set.count, augment}));
    EXPECT_TRUE(program->facts().training_set_on_device);
  }
  const std::size_t image_bytes = graph.input.elements();
  TrainingRun run;
  for (int step = 0; step < kSteps; ++step) {
    const int count = step == kSteps - 1 ? 5 : kTrainBatch;
    const auto rows = rows_of_step(step, count, set.count);
    if (give_rows) {
      program->train_step(TrainBatch{nullptr, nullptr, rows.data(), count, step});
    } else {
      std::vector<std::uint8_t> images(count * image_bytes);
      std::vector<std::int32_t> labels(count);
      for (int i = 0; i < count; ++i) {
        const std::uint8_t* image = set.images.data() + rows[i] * image_bytes;
        if (augment.count > 0) {
          augment_image(augment, step, rows[i], image, images.data() + i * image_bytes,
                        graph.input.c, graph.input.h, graph.input.w);
        } else {
          std::copy_n(image, image_bytes, images.begin() + i * image_bytes);
        }
        labels[i] = set.labels[rows[i]];
      }
      program->train_step(images.data(), labels.data(), count);
    }
    run.losses.push_back(program->take_loss().mean());
  }
  run.parameters = program->parameters();
  run.state = program->optimizer_state();
  return run;
}

class HeldSetParity : public ::testing::TestWithParam<bool> {};

TEST_P(HeldSetParity, TenLenetStepsOnRowsOfTheHeldSetMatchOnednn) {
  REQUIRE_GPU();
  const Graph graph = lenet();
  const HeldSet set = random_set(graph);
  CompileOptions options = options_for(graph, kTrainBatch, 16);
  options.optimizer = sgd(0.01, 0.9, 0, 5e-4, true);
  options.cuda_graph = GetParam();
  onednn::OnednnBackend cpu;
  TrainingRun expected = train_on_rows(cpu, graph, set, options, false);
  TrainingRun actual = train_on_rows(*gpu, graph, set, options, true);
  expect_same_training(graph, expected, actual, kTrainingTolerances);
}

// Rows augmented in the GPU's gather kernel equal rows augmented on the host: the same crops
// and flips, so the same losses and parameters (a new epoch every step, also when a captured
// graph replays the gather).
TEST_P(HeldSetParity, TenLenetStepsOnAugmentedRowsMatchOnednn) {
  REQUIRE_GPU();
  const Graph graph = lenet();
  const HeldSet set = random_set(graph);
  CompileOptions options = options_for(graph, kTrainBatch, 16);
  options.optimizer = sgd(0.01, 0.9, 0, 5e-4, true);
  options.cuda_graph = GetParam();
  const AugmentContext image{{3, 32, 32}, {}, {}};
  const augment_math::Plan augment =
      augment_plan({make_augment_step("random_crop", {{"padding", 4}}, image),
                    make_augment_step("horizontal_flip", nlohmann::json::object(), image)},
                   21);
  onednn::OnednnBackend cpu;
  TrainingRun expected = train_on_rows(cpu, graph, set, options, false, augment);
  TrainingRun actual = train_on_rows(*gpu, graph, set, options, true, augment);
  expect_same_training(graph, expected, actual, kTrainingTolerances);
}

INSTANTIATE_TEST_SUITE_P(CudaGraph, HeldSetParity, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "graph" : "eager"; });

// The set is held only when asked for; holding it adds its bytes to the program's memory, and
// the CPU never holds one.
TEST(HeldSet, HeldOnlyWhenTurnedOnAndCountedInDeviceMemory) {
  REQUIRE_GPU();
  const Graph graph = lenet();
  const HeldSet set = random_set(graph);
  const HostImageSet host{set.images.data(), set.labels.data(), set.count};
  CompileOptions options = options_for(graph, kTrainBatch, 16);
  options.dataset_on_device = false;
  auto off = gpu->compile(graph, options);
  EXPECT_FALSE(off->hold_training_set(host));
  EXPECT_FALSE(off->facts().training_set_on_device);
  options.dataset_on_device = true;
  auto on = gpu->compile(graph, options);
  const std::int64_t before = on->facts().device_memory_bytes;
  EXPECT_TRUE(on->hold_training_set(host));
  EXPECT_TRUE(on->hold_training_set(host)) << "asking again gives the first answer";
  EXPECT_GE(on->facts().device_memory_bytes - before,
            static_cast<std::int64_t>(set.images.size() + 4 * set.labels.size()));
  onednn::OnednnBackend cpu;
  EXPECT_FALSE(cpu.compile(graph, options)->hold_training_set(host));
  // A label outside the classes is the user's error, found when the set is taken.
  HeldSet bad = set;
  bad.labels[17] = 10;
  auto program = gpu->compile(graph, options);
  EXPECT_THROW(program->hold_training_set({bad.images.data(), bad.labels.data(), bad.count}),
               UserError);
}

// Deterministic algorithms: two runs give bitwise the same parameters, graph or not.
TEST(ParityDeterminism, DeterministicRunsRepeatBitwise) {
  REQUIRE_GPU();
  const Graph graph = lenet();
  const OptimizerSpec optimizer = sgd(0.01, 0.9, 0, 0, false);
  TrainingRun first = train(*gpu, graph, optimizer, true, true);
  TrainingRun second = train(*gpu, graph, optimizer, false, true);
  EXPECT_EQ(first.losses, second.losses);
  ASSERT_EQ(first.parameters.size(), second.parameters.size());
  for (std::size_t k = 0; k < first.parameters.size(); ++k) {
    EXPECT_EQ(first.parameters[k].values, second.parameters[k].values) << first.parameters[k].name;
  }
}

// Checkpoint state moves between programs: 5 + 5 steps (state saved and loaded, so Adam's step
// count on the device is restored) give what 10 uninterrupted steps give.
TEST(ParityCheckpoint, ResumedAdamMatchesUninterrupted) {
  REQUIRE_GPU();
  const Graph graph = lenet();
  const OptimizerSpec optimizer = adam(1e-3, 0);
  onednn::OnednnBackend cpu;
  // Five steps on the CPU, then the state moves to the GPU for the last five.
  CompileOptions options = options_for(graph, kTrainBatch, 16);
  options.optimizer = optimizer;
  auto first = cpu.compile(graph, options);
  auto second = gpu->compile(graph, options);
  first->load_parameters(initial_parameters(graph, 3));
  auto step = [&](Program& program, int s) {
    const int count = s == kSteps - 1 ? 5 : kTrainBatch;
    Random random(100 + s);
    std::vector<std::uint8_t> images(count * graph.input.elements());
    std::vector<std::int32_t> labels(count);
    for (auto& b : images) b = static_cast<std::uint8_t>(random.below(256));
    for (auto& l : labels) l = static_cast<std::int32_t>(random.below(10));
    program.train_step(images.data(), labels.data(), count);
  };
  for (int s = 0; s < 5; ++s) step(*first, s);
  second->load_parameters(first->parameters());
  second->load_optimizer_state(first->optimizer_state());
  for (int s = 5; s < kSteps; ++s) step(*second, s);
  TrainingRun uninterrupted = train(cpu, graph, optimizer, true);
  auto expected = index_of(uninterrupted.parameters);
  auto initial = index_of(initial_parameters(graph, 3));
  for (const auto& tensor : second->parameters()) {
    const auto& start = initial.at(tensor.name)->values;
    Values change(start.size()), expected_change(start.size());
    for (std::size_t i = 0; i < start.size(); ++i) {
      change[i] = tensor.values[i] - start[i];
      expected_change[i] = expected.at(tensor.name)->values[i] - start[i];
    }
    double error = relative_error(change, expected_change);
    EXPECT_LT(error, kTrainedChangeTolerance)
        << tensor.name << ": max relative difference " << error;
  }
  for (const auto& tensor : second->optimizer_state()) {
    if (tensor.name == "optimizer.step") {
      EXPECT_EQ(tensor.integers.at(0), 10);
    }
  }
}

// A profiled step computes what a plain step computes and times every labelled step.
TEST(ParityProfile, ProfiledStepMatchesPlainStep) {
  REQUIRE_GPU();
  const Graph graph = lenet();
  CompileOptions options = options_for(graph, kTrainBatch, 16);
  options.deterministic = true;
  auto plain = gpu->compile(graph, options);
  auto profiled = gpu->compile(graph, options);
  plain->load_parameters(initial_parameters(graph, 3));
  profiled->load_parameters(initial_parameters(graph, 3));
  Batch batch = random_batch(graph.input, kTrainBatch, 9);
  for (auto& l : batch.labels) l %= 10;
  std::vector<StepTiming> timings;
  plain->train_step(batch.bytes.data(), batch.labels.data(), kTrainBatch);
  profiled->profile_train_step(batch.bytes.data(), batch.labels.data(), kTrainBatch, timings);
  EXPECT_EQ(plain->take_loss().sum, profiled->take_loss().sum);
  auto a = plain->parameters(), b = profiled->parameters();
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k].values, b[k].values) << a[k].name;
  std::vector<std::string> labels;
  for (const auto& t : timings) {
    labels.push_back(t.label);
    EXPECT_GE(t.seconds, 0) << t.label;
  }
  for (std::string want : {"upload batch", "normalize input", "conv1", "loss",
                           "conv1 backward weights", "fc3 backward data", "optimizer update"}) {
    EXPECT_NE(std::find(labels.begin(), labels.end(), want), labels.end()) << want;
  }
}

}  // namespace
}  // namespace runner::testing
