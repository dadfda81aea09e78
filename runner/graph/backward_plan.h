// The backward pass as a backend-neutral plan: which nodes need a gradient, which buffer each
// input's gradient goes to, and which contributions are summed. Each backend only allocates the
// buffers and runs the steps.
#pragma once

#include <vector>

#include "runner/graph/graph.h"

namespace runner {

inline constexpr int kNoGradient = -1;

struct BackwardStep {
  int node = 0;
  // Buffers summed into the node's output gradient before its backward pass runs (its
  // consumers' contributions); empty when a single consumer wrote the gradient in place.
  std::vector<int> summed;
  // Per input of the node: the buffer its gradient goes to, or kNoGradient (the images, or a
  // node whose output needs none).
  std::vector<int> input_gradients;
};

struct BackwardPlan {
  // Per node: whether its output needs a gradient (it has parameters, or reads a node that has).
  std::vector<bool> needs_gradient;
  // Per node: the buffer holding its output's gradient, or kNoGradient.
  std::vector<int> output_gradient;
  // Per buffer: the node whose output it is shaped like. The nodes' own output gradients come
  // first; then one buffer per contribution to an output read by several consumers.
  std::vector<int> buffer_shape_of;
  // In reverse topological order, one per node that needs a gradient.
  std::vector<BackwardStep> steps;
};

BackwardPlan plan_backward(const Graph& graph);

// Per buffer, the steps (indices into plan.steps) that first write it and last read it; -1 for
// the logits' gradient, which the loss writes before the first step. first > last for a buffer
// no step touches.
struct BufferLife {
  int first = 0, last = -1;
};
std::vector<BufferLife> buffer_lives(const BackwardPlan& plan);

}  // namespace runner
