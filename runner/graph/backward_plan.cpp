// plan_backward: gradients flow from the logits to the first node with parameters; an output
// read once gets its gradient written in place, one read several times gets a buffer per reader.
#include "runner/graph/backward_plan.h"

#include <algorithm>
#include <limits>

namespace runner {

BackwardPlan plan_backward(const Graph& graph) {
  const int count = static_cast<int>(graph.nodes.size());
  BackwardPlan plan;
  plan.needs_gradient = graph.nodes_needing_gradient();
  plan.output_gradient.assign(count, kNoGradient);
  for (int i = 0; i < count; ++i) {
    if (!plan.needs_gradient[i]) continue;
    plan.output_gradient[i] = static_cast<int>(plan.buffer_shape_of.size());
    plan.buffer_shape_of.push_back(i);
  }
  const auto consumers = graph.consumers();
  std::vector<std::vector<int>> contributions(count);  // per node, buffers written by readers
  for (int i = count; i-- > 0;) {
    if (!plan.needs_gradient[i]) continue;
    BackwardStep step;
    step.node = i;
    if (contributions[i].size() > 1) step.summed = contributions[i];
    for (int input : graph.nodes[i].inputs) {
      int target = kNoGradient;
      if (input != kDataInput && plan.needs_gradient[input]) {
        if (consumers[input].size() == 1) {
          target = plan.output_gradient[input];
        } else {
          target = static_cast<int>(plan.buffer_shape_of.size());
          plan.buffer_shape_of.push_back(input);
        }
        contributions[input].push_back(target);
      }
      step.input_gradients.push_back(target);
    }
    plan.steps.push_back(std::move(step));
  }
  return plan;
}

std::vector<BufferLife> buffer_lives(const BackwardPlan& plan) {
  std::vector<BufferLife> lives(plan.buffer_shape_of.size(), {std::numeric_limits<int>::max(), -1});
  auto touch = [&](int id, int step) {
    if (id == kNoGradient) return;
    lives[id].first = std::min(lives[id].first, step);
    lives[id].last = std::max(lives[id].last, step);
  };
  if (!plan.output_gradient.empty()) touch(plan.output_gradient.back(), -1);
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const BackwardStep& step = plan.steps[s];
    const int at = static_cast<int>(s);
    touch(plan.output_gradient[step.node], at);
    for (int part : step.summed) touch(part, at);
    for (int id : step.input_gradients) touch(id, at);
  }
  return lives;
}

}  // namespace runner
