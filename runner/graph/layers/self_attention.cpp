// self_attention: multi-head scaled dot-product self-attention over a token sequence, timm's
// Attention: qkv = x W_qkv^T + b_qkv split into q, k, v of `heads` heads of C / heads features
// (qkv.reshape(N, T, 3, heads, d).permute(2, 0, 3, 1, 4)), softmax(q k^T / sqrt(d)) (with
// dropout on it in training when `dropout` > 0) times v, the heads joined and projected by
// proj. Parameters as timm names them: <layer>.qkv.weight [3C, C], .qkv.bias [3C],
// .proj.weight [C, C], .proj.bias [C], started as nn.Linear's (or by `init` / model.init).
#include <fmt/format.h>

#include "runner/graph/layer_kind.h"

namespace runner {

RUNNER_LAYER_KIND(self_attention) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    a.heads = read_int(spec, "heads", 1);  // required by the schema; not scaled by model.width
    a.p = spec.attributes.value("dropout", 0.0);
    a.bias = spec.attributes.value("bias", true);
    read_weight_init(spec, a);
  };
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    require_tokens(node, in[0]);
    if (node.attrs.heads < 1 || in[0].c % node.attrs.heads != 0) {
      throw_shape_error(node, fmt::format("input {} has {} features, not divisible by heads {} "
                                          "(model.width scales the features, not the heads)",
                                          in[0].str(), in[0].c, node.attrs.heads));
    }
    return in[0];
  };
  kind.params = [](const Node& node, const std::vector<Shape>& in) {
    const std::int64_t c = in[0].c;
    const ParamInit init = weight_param_init(node.attrs);
    std::vector<ParamSpec> params = {{node.name + ".qkv.weight", {3 * c, c}, c, init}};
    if (node.attrs.bias) params.push_back({node.name + ".qkv.bias", {3 * c}, c});
    params.push_back({node.name + ".proj.weight", {c, c}, c, init});
    if (node.attrs.bias) params.push_back({node.name + ".proj.bias", {c}, c});
    return params;
  };
  // The four matrix products (qkv, q k^T, the probabilities times v, proj) and the biases; the
  // softmax and the scaling are not counted.
  kind.flops = [](const Node& node, const std::vector<Shape>& in) {
    const std::int64_t t = in[0].h, c = in[0].c;
    const std::int64_t biases = node.attrs.bias ? 4 * t * c : 0;
    return 2 * t * c * 3 * c + 2 * t * t * c + 2 * t * t * c + 2 * t * c * c + biases;
  };
  return kind;
}

}  // namespace runner
