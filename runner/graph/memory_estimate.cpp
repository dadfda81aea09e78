// The memory estimate: counts of floats from the graph's shapes, times the batch sizes.
#include "runner/graph/memory_estimate.h"

#include <limits>

namespace runner {
namespace {

// Saturating arithmetic: a model at the graph's size limits times a large batch exceeds 2^63
// bytes, and the estimate should then say "more than any machine has", not wrap negative.
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
std::int64_t mul(std::int64_t a, std::int64_t b) {
  std::int64_t out;
  return __builtin_mul_overflow(a, b, &out) ? kMax : out;
}
std::int64_t add(std::int64_t a, std::int64_t b) {
  std::int64_t out;
  return __builtin_add_overflow(a, b, &out) ? kMax : out;
}

}  // namespace

std::int64_t MemoryEstimate::total() const {
  std::int64_t sum = 0;
  for (std::int64_t part : {parameters, gradients, optimizer_state, activations,
                            activation_gradients, workspaces, evaluation}) {
    sum = add(sum, part);
  }
  return sum;
}

MemoryEstimate estimate_training_memory(const Graph& graph, int train_batch, int eval_batch,
                                        const OptimizerSpec& optimizer, Precision precision) {
  constexpr std::int64_t kFloat = sizeof(float);
  // Mixed precision keeps activations and their gradients in 16 bits.
  const bool half = precision == Precision::bf16 || precision == Precision::fp16;
  const std::int64_t kActivation = half ? 2 : kFloat;
  const std::int64_t params = graph.parameter_count();
  std::int64_t outputs = 0;  // floats per sample over every layer output
  std::int64_t pool_outputs = 0;
  for (const Node& node : graph.nodes) {
    outputs = add(outputs, node.output.elements());
    if (node.type == "max_pool2d") pool_outputs = add(pool_outputs, node.output.elements());
  }
  const std::int64_t per_sample = add(graph.input.elements(), outputs);  // normalised input too

  MemoryEstimate e;
  // 16-bit runs add 16-bit copies of the FP32 master weights.
  e.parameters = mul(params, half ? kFloat + 2 : kFloat);
  e.gradients = mul(params, kFloat);
  e.optimizer_state = mul(static_cast<std::int64_t>(optimizer.state_names().size()), e.parameters);
  e.activations = mul(mul(train_batch, per_sample), kActivation);
  e.activation_gradients = mul(mul(train_batch, outputs), kActivation);
  e.workspaces = add(mul(mul(train_batch, pool_outputs), kFloat),
                     mul(std::int64_t{train_batch} + eval_batch, graph.input.elements()));
  e.evaluation = mul(mul(eval_batch, per_sample), kActivation);
  return e;
}

}  // namespace runner
