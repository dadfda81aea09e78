// The memory estimate: counts of floats from the graph's shapes, times the batch sizes.
#include "runner/graph/memory_estimate.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "runner/graph/backward_plan.h"

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

// What a self_attention holds per image beside its output: in the forward pass its qkv rows
// (3 T C), its probabilities (H T T, again after dropout) and its context (T C); in the backward
// pass the gradients of those three.
struct AttentionValues {
  std::int64_t forward = 0, backward = 0;
};
AttentionValues attention_values(const Node& node) {
  if (node.type != "self_attention") return {};
  const std::int64_t rows = node.output.elements();  // T C
  const std::int64_t probabilities =
      static_cast<std::int64_t>(node.attrs.heads) * node.output.h * node.output.h;
  return {4 * rows + (node.attrs.p > 0 ? 2 : 1) * probabilities, 4 * rows + probabilities};
}

}  // namespace

std::int64_t peak_live_values(const Graph& graph) {
  const int count = static_cast<int>(graph.nodes.size());
  const std::vector<int> last_reader = graph.last_readers();
  std::vector<std::int64_t> freed_after(count + 1, 0);  // values no layer reads after layer i
  freed_after[last_reader[count]] = graph.input.elements();
  for (int j = 0; j < count; ++j) {
    freed_after[last_reader[j]] =
        add(freed_after[last_reader[j]], graph.nodes[j].output.elements());
  }
  std::int64_t live = graph.input.elements(), peak = live;
  for (int i = 0; i < count; ++i) {
    live = add(live, graph.nodes[i].output.elements());
    peak = std::max(peak, add(live, attention_values(graph.nodes[i]).forward));
    live -= freed_after[i];
  }
  return peak;
}

std::int64_t peak_live_gradients(const Graph& graph) {
  const BackwardPlan plan = plan_backward(graph);
  const std::vector<BufferLife> lives = buffer_lives(plan);
  // Per step, the values that start living there and those that die after it (the loss's
  // write counts at the first step).
  const int steps = static_cast<int>(plan.steps.size());
  std::vector<std::int64_t> born(steps + 1, 0), dead_after(steps + 1, 0);
  for (std::size_t b = 0; b < lives.size(); ++b) {
    if (lives[b].last < lives[b].first) continue;  // never used
    const std::int64_t values = graph.nodes[plan.buffer_shape_of[b]].output.elements();
    const int first = std::max(lives[b].first, 0), last = std::max(lives[b].last, 0);
    born[first] = add(born[first], values);
    dead_after[last] = add(dead_after[last], values);
  }
  std::int64_t live = 0, peak = 0;
  for (int s = 0; s < steps; ++s) {
    live = add(live, born[s]);
    peak = std::max(peak, live);
    live -= dead_after[s];
  }
  return peak;
}

std::int64_t MemoryEstimate::total() const {
  std::int64_t sum = 0;
  for (std::int64_t part : {parameters, gradients, optimizer_state, activations,
                            activation_gradients, workspaces, evaluation}) {
    sum = add(sum, part);
  }
  return sum;
}

MemoryEstimate estimate_training_memory(const Graph& graph, int train_batch, int eval_batch,
                                        const OptimizerSpec& optimizer, Precision precision,
                                        MemoryReuse reuse) {
  constexpr std::int64_t kFloat = sizeof(float);
  // Mixed precision keeps activations and their gradients in 16 bits.
  const bool half = precision == Precision::bf16 || precision == Precision::fp16;
  const std::int64_t kActivation = half ? 2 : kFloat;
  const std::int64_t params = graph.parameter_count();
  std::int64_t outputs = 0;  // floats per sample over every layer output
  std::int64_t pool_outputs = 0;
  AttentionValues attention;  // per sample, over every self_attention
  for (const Node& node : graph.nodes) {
    outputs = add(outputs, node.output.elements());
    if (node.type == "max_pool2d") pool_outputs = add(pool_outputs, node.output.elements());
    attention.forward = add(attention.forward, attention_values(node).forward);
    attention.backward = add(attention.backward, attention_values(node).backward);
  }
  // The normalised input too, and the attentions' inner values.
  const std::int64_t per_sample = add(add(graph.input.elements(), outputs), attention.forward);

  MemoryEstimate e;
  // 16-bit runs add 16-bit copies of the FP32 master weights.
  e.parameters = mul(params, half ? kFloat + 2 : kFloat);
  e.gradients = mul(params, kFloat);
  e.optimizer_state = mul(static_cast<std::int64_t>(optimizer.state_names().size()), e.parameters);
  e.activations = mul(mul(train_batch, per_sample), kActivation);
  const bool reused = reuse == MemoryReuse::lifetimes;
  const std::int64_t gradients = reused ? peak_live_gradients(graph) : outputs;
  e.activation_gradients = mul(mul(train_batch, add(gradients, attention.backward)), kActivation);
  e.workspaces = add(mul(mul(train_batch, pool_outputs), kFloat),
                     mul(std::int64_t{train_batch} + eval_batch, graph.input.elements()));
  const std::int64_t evaluated = reused ? peak_live_values(graph) : per_sample;
  e.evaluation = mul(mul(eval_batch, evaluated), kActivation);
  return e;
}

}  // namespace runner
