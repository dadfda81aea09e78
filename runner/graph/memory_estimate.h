// What training a Graph needs in device memory for a batch size, estimated from its shapes:
// the plan a sweep prints before it runs, and the figure each report records.
#pragma once

#include <cstdint>

#include "runner/config/optimizer_spec.h"
#include "runner/config/precision.h"
#include "runner/graph/graph.h"

namespace runner {

// Bytes: float32 (16-bit activations in mixed precision) except the uint8 input batches.
struct MemoryEstimate {
  std::int64_t parameters = 0;
  std::int64_t gradients = 0;
  std::int64_t optimizer_state = 0;  // momentum buffer (sgd with momentum), 2 moments (adam)
  // train batch: the normalised input, every layer output and an attention's inner values
  std::int64_t activations = 0;
  std::int64_t activation_gradients = 0;  // train batch: their gradients
  std::int64_t workspaces = 0;            // max-pooling indices, the uint8 batches
  std::int64_t evaluation = 0;            // the evaluation batch's forward activations
  std::int64_t total() const;             // saturates at the largest int64 rather than wrapping
};

// `precision` bf16 or fp16: activations, their gradients and a copy of the weights in 16 bits.
MemoryEstimate estimate_training_memory(const Graph& graph, int train_batch, int eval_batch,
                                        const OptimizerSpec& optimizer,
                                        Precision precision = Precision::fp32);

}  // namespace runner
