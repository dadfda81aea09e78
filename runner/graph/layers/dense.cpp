// flatten (CxHxW to C*H*W, PyTorch's order) and linear (fully connected, optional bias; on a
// token sequence it maps each token's features, as nn.Linear on (N, T, C)).
#include <fmt/format.h>

#include "runner/graph/layer_kind.h"

namespace runner {

RUNNER_LAYER_KIND(flatten) {
  LayerKind kind;
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    if (in[0].tokens) {
      throw_shape_error(node, fmt::format("got the token sequence {}: a token_select (the class "
                                          "token or the mean) gives the flat features",
                                          in[0].str()));
    }
    return Shape{static_cast<int>(in[0].elements()), 1, 1, true};
  };
  kind.flops = [](const Node&, const std::vector<Shape>&) { return std::int64_t{0}; };
  return kind;
}

RUNNER_LAYER_KIND(linear) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double width, LayerAttrs& a) {
    a.out_features = read_scaled_count(spec, "out_features", width);
    a.bias = spec.attributes.value("bias", true);
    read_weight_init(spec, a);
  };
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    if (in[0].tokens) return Shape{node.attrs.out_features, in[0].h, 1, false, true};
    if (!in[0].flat) {
      throw_shape_error(
          node,
          fmt::format("needs a flat input, got {}: add a flatten layer before it", in[0].str()));
    }
    return Shape{node.attrs.out_features, 1, 1, true};
  };
  kind.params = [](const Node& node, const std::vector<Shape>& in) {
    const LayerAttrs& a = node.attrs;
    std::vector<ParamSpec> params = {
        {node.name + ".weight", {a.out_features, in[0].c}, in[0].c, weight_param_init(a)}};
    if (a.bias) params.push_back({node.name + ".bias", {a.out_features}, in[0].c});
    return params;
  };
  kind.flops = [](const Node& node, const std::vector<Shape>& in) {
    const std::int64_t per_token =
        2 * static_cast<std::int64_t>(in[0].c) * node.attrs.out_features +
        (node.attrs.bias ? node.attrs.out_features : 0);
    return per_token * (in[0].tokens ? in[0].h : 1);  // a flat input is one "token"
  };
  return kind;
}

}  // namespace runner
