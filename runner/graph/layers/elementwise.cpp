// Shape-preserving kinds: relu (one input) and add (two or more inputs of one shape).
#include <fmt/format.h>

#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

std::vector<ParamSpec> no_params(const Node&, const std::vector<Shape>&) {
  return {};
}
void no_attributes(const LayerSpec&, double, LayerAttrs&) {}

}  // namespace

LayerKind relu_kind() {
  LayerKind kind;
  kind.type = "relu";
  kind.parse = no_attributes;
  kind.infer_shape = [](const Node&, const std::vector<Shape>& in) { return in[0]; };
  kind.params = no_params;
  kind.flops = [](const Node& node, const std::vector<Shape>&) { return node.output.elements(); };
  return kind;
}

LayerKind add_kind() {
  LayerKind kind;
  kind.type = "add";
  kind.min_inputs = 2;
  kind.max_inputs = 8;
  kind.parse = no_attributes;
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
  kind.params = no_params;
  kind.flops = [](const Node& node, const std::vector<Shape>& in) {
    return node.output.elements() * static_cast<std::int64_t>(in.size() - 1);
  };
  return kind;
}

}  // namespace runner
