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

// Whether the backend gives each layer output of an evaluation pass, and each activation
// gradient of a training step, memory of its own (`none`: the cuDNN backend), or lets values
// that are never live at once share it (`lifetimes`: the oneDNN backend); the estimate then
// counts the peak of the values live at once.
enum class MemoryReuse { none, lifetimes };
// On `device`: lifetimes on the CPU; none on cuda, and on auto (which may pick a GPU).
inline MemoryReuse memory_reuse_on(const Device& device) {
  return device.is_cpu() ? MemoryReuse::lifetimes : MemoryReuse::none;
}

// `precision` bf16 or fp16: activations, their gradients and a copy of the weights in 16 bits.
MemoryEstimate estimate_training_memory(const Graph& graph, int train_batch, int eval_batch,
                                        const OptimizerSpec& optimizer,
                                        Precision precision = Precision::fp32,
                                        MemoryReuse reuse = MemoryReuse::none);

// The largest number of values per image that a forward pass holds at once when each output is
// freed after its last reader: the input, the outputs still to be read and the layer's own.
std::int64_t peak_live_values(const Graph& graph);

// The largest number of activation-gradient values per image that a backward pass holds at once
// when each gradient lives from the step that first writes it to the step that last reads it
// (runner/graph/backward_plan.h's steps; the logits' gradient from the loss on).
std::int64_t peak_live_gradients(const Graph& graph);

}  // namespace runner
