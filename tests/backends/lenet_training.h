// What the GPU tests share: the backend for cuda:0 (or why there is none: the tests skip), the
// tutorial's LeNet, a few training steps of it on fixed random batches, and their comparison
// with another run's within stated tolerances. Used by parity_test.cpp and precision_test.cpp.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "layer_cases.h"

namespace runner::testing {

// The GPU backend for cuda:0, or null with the reason it is not usable.
std::unique_ptr<Backend> gpu_backend(std::string& why);

#define REQUIRE_GPU()                 \
  std::string why_no_gpu;             \
  auto gpu = gpu_backend(why_no_gpu); \
  if (!gpu) GTEST_SKIP() << "no usable GPU: " << why_no_gpu

Values values_of(const std::vector<float>& v);
std::map<std::string, const HostTensor*> index_of(const std::vector<HostTensor>& tensors);

// The PyTorch tutorial's LeNet on 3x32x32 images, 10 classes.
Graph lenet();

constexpr int kTrainBatch = 8;
constexpr int kSteps = 10;

struct TrainingRun {
  std::vector<double> losses;      // mean loss of each step
  std::vector<double> grad_norms;  // clip_grad_norm: each step's gradient norm before clipping
  std::vector<HostTensor> parameters, state;
};

// `steps` steps on fixed random batches from initial_parameters(graph, 3); the last of kSteps
// batches is short (5 of 8), as an epoch's end is. With momentum_per_step, each step's momentum
// (or beta1) is set before it, falling from 0.95.
TrainingRun train(Backend& backend, const Graph& graph, const OptimizerSpec& optimizer,
                  bool cuda_graph, bool deterministic = false, int steps = kSteps,
                  double clip_grad_norm = 0, bool momentum_per_step = false,
                  Precision precision = Precision::fp32);

// Each relative to the largest magnitude of the expected tensor (relative_error), the loss's to
// the expected loss.
struct TrainingTolerances {
  double loss;    // each step's mean loss
  double change;  // each parameter's change from its start
  double state;   // optimizer buffers at the end
};

// Losses step by step, each parameter's change from its start and the optimizer state after
// the run agree within `tolerance`.
void expect_same_training(const Graph& graph, const TrainingRun& expected,
                          const TrainingRun& actual, const TrainingTolerances& tolerance);

}  // namespace runner::testing
