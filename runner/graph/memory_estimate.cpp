// The memory estimate: counts of floats from the graph's shapes, times the batch sizes.
#include "runner/graph/memory_estimate.h"

namespace runner {

MemoryEstimate estimate_training_memory(const Graph& graph, int train_batch, int eval_batch,
                                        const OptimizerSpec& optimizer) {
  constexpr std::int64_t kFloat = sizeof(float);
  const std::int64_t params = graph.parameter_count();
  std::int64_t outputs = 0;  // floats per sample over every layer output
  std::int64_t pool_outputs = 0;
  for (const Node& node : graph.nodes) {
    outputs += node.output.elements();
    if (node.type == "max_pool2d") pool_outputs += node.output.elements();
  }
  const std::int64_t per_sample = graph.input.elements() + outputs;  // normalised input included

  MemoryEstimate e;
  e.parameters = params * kFloat;
  e.gradients = params * kFloat;
  int moments = optimizer.type == "adam" ? 2 : (optimizer.momentum != 0.0 ? 1 : 0);
  e.optimizer_state = moments * params * kFloat;
  e.activations = train_batch * per_sample * kFloat;
  e.activation_gradients = train_batch * outputs * kFloat;
  e.workspaces =
      train_batch * pool_outputs * kFloat + (train_batch + eval_batch) * graph.input.elements();
  e.evaluation = eval_batch * per_sample * kFloat;
  return e;
}

}  // namespace runner
