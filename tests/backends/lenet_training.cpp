// The GPU tests' shared LeNet training runs (lenet_training.h).
#include "lenet_training.h"

#include <gtest/gtest.h>

#include <cmath>

#include "runner/util/errors.h"

namespace runner::testing {

std::unique_ptr<Backend> gpu_backend(std::string& why) {
  try {
    return make_backend(*Device::parse("cuda:0"), nullptr);
  } catch (const UserError& e) {
    why = e.what();
    return nullptr;
  }
}

Values values_of(const std::vector<float>& v) {
  return Values(v.begin(), v.end());
}

std::map<std::string, const HostTensor*> index_of(const std::vector<HostTensor>& tensors) {
  std::map<std::string, const HostTensor*> index;
  for (const auto& t : tensors) index[t.name] = &t;
  return index;
}

// The PyTorch tutorial's LeNet on 3x32x32 images, 10 classes.
Graph lenet() {
  ModelSpec model;
  model.layers = {layer("conv1", "conv2d", {{"out_channels", 6}, {"kernel", 5}}),
                  layer("relu1", "relu"),
                  layer("pool1", "max_pool2d", {{"kernel", 2}, {"stride", 2}}),
                  layer("conv2", "conv2d", {{"out_channels", 16}, {"kernel", 5}}),
                  layer("relu2", "relu"),
                  layer("pool2", "max_pool2d", {{"kernel", 2}, {"stride", 2}}),
                  layer("flat", "flatten"),
                  layer("fc1", "linear", {{"out_features", 120}}),
                  layer("relu3", "relu"),
                  layer("fc2", "linear", {{"out_features", 84}}),
                  layer("relu4", "relu"),
                  layer("fc3", "linear", {{"out_features", 10}})};
  return build_graph(model, {3, 32, 32}, 10);
}

TrainingRun train(Backend& backend, const Graph& graph, const OptimizerSpec& optimizer,
                  bool cuda_graph, bool deterministic, int steps, double clip_grad_norm,
                  bool momentum_per_step, Precision precision) {
  CompileOptions options = options_for(graph, kTrainBatch, 16);
  options.optimizer = optimizer;
  options.clip_grad_norm = clip_grad_norm;
  options.cuda_graph = cuda_graph;
  options.deterministic = deterministic;
  options.precision = precision;
  auto program = backend.compile(graph, options);
  program->load_parameters(initial_parameters(graph, 3));
  TrainingRun run;
  for (int step = 0; step < steps; ++step) {
    const int count = step == kSteps - 1 ? 5 : kTrainBatch;
    Random random(100 + step);
    std::vector<std::uint8_t> images(count * graph.input.elements());
    std::vector<std::int32_t> labels(count);
    for (auto& b : images) b = static_cast<std::uint8_t>(random.below(256));
    for (auto& l : labels) l = static_cast<std::int32_t>(random.below(10));
    if (momentum_per_step) program->set_momentum(0.95 - 0.02 * step);
    program->train_step(images.data(), labels.data(), count);
    const LossSum taken = program->take_loss();
    run.losses.push_back(taken.mean());
    if (taken.grad_norm_count > 0) run.grad_norms.push_back(taken.grad_norm_mean());
  }
  run.parameters = program->parameters();
  run.state = program->optimizer_state();
  return run;
}

void expect_same_training(const Graph& graph, const TrainingRun& expected,
                          const TrainingRun& actual, const TrainingTolerances& tolerance) {
  ASSERT_EQ(actual.losses.size(), expected.losses.size());
  for (std::size_t step = 0; step < expected.losses.size(); ++step) {
    EXPECT_NEAR(actual.losses[step], expected.losses[step],
                tolerance.loss * std::abs(expected.losses[step]))
        << "loss of step " << step + 1;
  }
  auto initial = index_of(initial_parameters(graph, 3));
  auto cpu_params = index_of(expected.parameters);
  for (const auto& tensor : actual.parameters) {
    const auto& start = initial.at(tensor.name)->values;
    const auto& cpu_end = cpu_params.at(tensor.name)->values;
    Values change(start.size()), expected_change(start.size());
    for (std::size_t i = 0; i < start.size(); ++i) {
      change[i] = tensor.values[i] - start[i];
      expected_change[i] = cpu_end[i] - start[i];
    }
    double error = relative_error(change, expected_change);
    EXPECT_LT(error, tolerance.change) << tensor.name << " change over " << expected.losses.size()
                                       << " steps: max relative difference " << error;
  }
  auto cpu_state = index_of(expected.state);
  ASSERT_EQ(actual.state.size(), expected.state.size());
  for (const auto& tensor : actual.state) {
    ASSERT_TRUE(cpu_state.count(tensor.name)) << tensor.name;
    if (tensor.name == "optimizer.step") {  // an int64 count
      EXPECT_EQ(tensor.integers, cpu_state.at(tensor.name)->integers);
      continue;
    }
    double error =
        relative_error(values_of(tensor.values), values_of(cpu_state.at(tensor.name)->values));
    EXPECT_LT(error, tolerance.state) << tensor.name << ": max relative difference " << error;
  }
}

}  // namespace runner::testing
