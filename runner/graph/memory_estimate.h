// What training a Graph needs in device memory for a batch size, estimated from its shapes:
// the plan a sweep prints before it runs, and the figure each report records.
#pragma once

#include <cstdint>

#include "runner/config/device.h"
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

// What an evaluation forward pass keeps: every layer output (the cuDNN backend), or only the
// outputs that a later layer still reads (the oneDNN backend reuses the others' memory).
enum class EvaluationOutputs { every, live };
// On `device`: live on the CPU; every output on cuda, and on auto (which may pick a GPU).
inline EvaluationOutputs evaluation_outputs_on(const Device& device) {
  return device.is_cpu() ? EvaluationOutputs::live : EvaluationOutputs::every;
}

// `precision` bf16 or fp16: activations, their gradients and a copy of the weights in 16 bits.
MemoryEstimate estimate_training_memory(const Graph& graph, int train_batch, int eval_batch,
                                        const OptimizerSpec& optimizer,
                                        Precision precision = Precision::fp32,
                                        EvaluationOutputs kept = EvaluationOutputs::every);

// The largest number of values per image that a forward pass holds at once when each output is
// freed after its last reader: the input, the outputs still to be read and the layer's own.
std::int64_t peak_live_values(const Graph& graph);

}  // namespace runner
