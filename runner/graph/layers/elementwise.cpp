// Shape-preserving kinds: relu (one input) and add (two or more inputs of one shape).
#include <fmt/format.h>

#include "runner/graph/layer_kind.h"

namespace runner {

RUNNER_LAYER_KIND(relu) {
  return LayerKind{};  // one input, its shape, one operation per value
}

RUNNER_LAYER_KIND(add) {
  LayerKind kind;
  kind.min_inputs = 2;
  kind.max_inputs = 8;
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    for (std::size_t i = 1; i < in.size(); ++i) {
      if (!(in[i] == in[0])) {
        throw_shape_error(node,
                          fmt::format("inputs must have one shape: input 1 is {}, input {} is {}",
                                      in[0].str(), i + 1, in[i].str()));
      }
    }
    return in[0];
  };
  kind.flops = [](const Node& node, const std::vector<Shape>& in) {
    return node.output.elements() * static_cast<std::int64_t>(in.size() - 1);
  };
  return kind;
}

}  // namespace runner
