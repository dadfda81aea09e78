// The optimizer's step count in a checkpoint: stored as an I64 tensor, so a step past 2^24 (where
// float32 stops being exact) resumes exactly; checkpoints that stored it as F32 still load.
#include <gtest/gtest.h>

#include <algorithm>

#include "runner/config/load_config.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/train/checkpoint.h"
#include "runner/train/safetensors.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

constexpr std::int64_t kPastFloatPrecision = 16777217;  // 2^24 + 1: no float32 holds it

struct AdamRun {
  Experiment experiment = load_experiment(testing::source_dir() / "configs" / "tiny_synthetic.yaml",
                                          {"training.optimizer={type: adam, lr: 0.001}"});
  Graph graph;
  std::unique_ptr<Backend> backend = make_backend(Device::cpu(), nullptr);

  AdamRun() {
    DatasetGeometry geometry = dataset_geometry(experiment.dataset);
    graph = build_graph(experiment.model, geometry.image, geometry.classes);
  }
  std::unique_ptr<Program> program() const {
    CompileOptions options;
    options.train_batch = 2;
    options.eval_batch = 2;
    options.optimizer = experiment.training.optimizer;
    auto program = backend->compile(graph, options);
    program->load_parameters(initial_parameters(graph, 1));
    return program;
  }
};

// A copy: the tensors are often a temporary.
HostTensor find(const std::vector<HostTensor>& tensors, const std::string& name) {
  auto it = std::find_if(tensors.begin(), tensors.end(),
                         [&](const HostTensor& t) { return t.name == name; });
  if (it == tensors.end()) throw std::runtime_error("no tensor " + name);
  return *it;
}

// A checkpoint of `program` whose optimizer.step is replaced by `step`.
std::filesystem::path save_with_step(const testing::TempDir& dir, const AdamRun& run,
                                     const HostTensor& step) {
  Checkpoint checkpoint = make_checkpoint(*run.program(), run.experiment, 1, "");
  for (HostTensor& t : checkpoint.tensors) {
    if (t.name == "optimizer.step") t = step;
  }
  const auto path = dir / "c.safetensors";
  save_safetensors(path, checkpoint);
  return path;
}

TEST(CheckpointStep, IsAnInt64TensorInTheFile) {
  AdamRun run;
  testing::TempDir dir;
  auto program = run.program();
  const auto path = dir / "c.safetensors";
  save_checkpoint(path, *program, run.experiment, 1, "");
  const Checkpoint loaded = load_safetensors(path);
  const HostTensor& step = find(loaded.tensors, "optimizer.step");
  EXPECT_EQ(step.dtype, TensorDtype::i64);
  EXPECT_EQ(step.dims, std::vector<std::int64_t>{1});
  EXPECT_EQ(step.integers, std::vector<std::int64_t>{0});
}

TEST(CheckpointStep, PastTwoToThe24ResumesExactly) {
  AdamRun run;
  testing::TempDir dir;
  const auto path =
      save_with_step(dir, run, int64_tensor("optimizer.step", {1}, {kPastFloatPrecision}));
  auto resumed = run.program();
  load_checkpoint(path, *resumed, CheckpointUse::resume);
  const HostTensor& step = find(resumed->optimizer_state(), "optimizer.step");
  ASSERT_EQ(step.dtype, TensorDtype::i64);
  EXPECT_EQ(step.integers.at(0), kPastFloatPrecision);
  // The next step counts on from it.
  std::vector<std::uint8_t> images(2 * run.graph.input.elements(), 7);
  std::vector<std::int32_t> labels{1, 2};
  resumed->train_step(images.data(), labels.data(), 2);
  EXPECT_EQ(find(resumed->optimizer_state(), "optimizer.step").integers.at(0),
            kPastFloatPrecision + 1);
}

TEST(CheckpointStep, AnOlderFloatStepStillLoads) {
  AdamRun run;
  testing::TempDir dir;
  const auto path = save_with_step(dir, run, HostTensor{"optimizer.step", {1}, {1234.f}});
  auto resumed = run.program();
  load_checkpoint(path, *resumed, CheckpointUse::resume);
  EXPECT_EQ(find(resumed->optimizer_state(), "optimizer.step").integers.at(0), 1234);
}

TEST(CheckpointStep, ABrokenStepIsAUserErrorNamingIt) {
  AdamRun run;
  testing::TempDir dir;
  const std::vector<std::pair<HostTensor, std::string>> cases = {
      {HostTensor{"optimizer.step", {1}, {2.5f}}, "is 2.5, expected a whole number"},
      {HostTensor{"optimizer.step", {1}, {-1.f}}, "is -1, expected a whole number"},
      {int64_tensor("optimizer.step", {1}, {-3}), "is -3, expected a count >= 0"},
      {int64_tensor("optimizer.step", {2}, {1, 2}), "holds 2 values, expected 1"}};
  for (const auto& [step, expected] : cases) {
    const auto path = save_with_step(dir, run, step);
    auto resumed = run.program();
    try {
      load_checkpoint(path, *resumed, CheckpointUse::resume);
      ADD_FAILURE() << "no error for " << expected;
    } catch (const UserError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("c.safetensors"), std::string::npos) << message;
      EXPECT_NE(message.find("tensor 'optimizer.step' " + expected), std::string::npos) << message;
    }
  }
}

TEST(CheckpointStep, AnInt64ParameterIsRefused) {
  AdamRun run;
  testing::TempDir dir;
  auto program = run.program();
  Checkpoint checkpoint = make_checkpoint(*program, run.experiment, 1, "");
  HostTensor& bias = checkpoint.tensors.at(1);
  ASSERT_EQ(bias.name, "conv1.bias");
  bias = int64_tensor(bias.name, bias.dims, std::vector<std::int64_t>(bias.values.size(), 1));
  save_safetensors(dir / "c.safetensors", checkpoint);
  try {
    load_checkpoint(dir / "c.safetensors", *program, CheckpointUse::weights);
    ADD_FAILURE() << "an int64 parameter loaded";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("tensor 'conv1.bias' holds int64 values"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace runner
