// A per-layer test on the oneDNN backend: the case's graph, its seed-11 initial parameters and
// a random batch, and programs compiled for it in a chosen precision.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "backends/onednn/onednn_backend.h"
#include "layer_cases.h"

namespace runner::testing {

class OnednnLayerTest : public ::testing::TestWithParam<LayerCase> {
 protected:
  void SetUp() override {
    const LayerCase& c = GetParam();
    ModelSpec model;
    model.layers = c.layers;
    graph_ = build_graph(model, c.input, kClasses);
    initial_ = initial_parameters(graph_, 11);
    batch_ = random_batch(c.input, c.batch, 5);
  }

  // Under options_for: one SGD step with lr 1 leaves p - grad.
  std::unique_ptr<Program> compile(int train_batch, int eval_batch, int max_chunk = 128,
                                   Precision precision = Precision::fp32, bool own_kernels = true) {
    CompileOptions options = options_for(graph_, train_batch, eval_batch);
    options.max_chunk = max_chunk;
    options.precision = precision;
    options.own_kernels = own_kernels;
    auto program = onednn::OnednnBackend().compile(graph_, options);
    program->load_parameters(initial_);
    return program;
  }

  Graph graph_;
  std::vector<HostTensor> initial_;
  Batch batch_;
};

}  // namespace runner::testing
