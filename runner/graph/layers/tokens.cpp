// Token sequences, as a vision transformer makes and reads them (timm's VisionTransformer):
// to_tokens turns an image into its positions' feature vectors, class_token prepends a learned
// token, position_embedding adds a learned one per token, token_select takes the class token or
// the mean of the tokens as the flat features a classifier reads. Learned tensors are named as
// the layer itself (timm's bare `cls_token` and `pos_embed`) and marked `embedding`.
#include <fmt/format.h>

#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

// timm's initialisations: the class token N(0, 1e-6^2) (VisionTransformer.init_weights), the
// position embedding trunc_normal_(std=0.02).
constexpr double kClassTokenStd = 1e-6;
constexpr double kPositionStd = 0.02;

ParamSpec embedding_param(const Node& node, std::vector<std::int64_t> dims, ParamInit init,
                          double stddev) {
  const std::int64_t features = dims.back();
  ParamSpec spec{node.name, std::move(dims), features, init};
  spec.stddev = stddev;
  spec.embedding = true;
  return spec;
}

}  // namespace

// (C, H, W) -> H*W tokens of C features, token h*W + w: x.flatten(2).transpose(1, 2).
RUNNER_LAYER_KIND(to_tokens) {
  LayerKind kind;
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    require_image(node, in[0]);
    return Shape{in[0].c, in[0].h * in[0].w, 1, false, true};
  };
  kind.flops = [](const Node&, const std::vector<Shape>&) { return std::int64_t{0}; };  // a copy
  return kind;
}

// T tokens -> T + 1: the learned token [1, 1, C] first (torch.cat((cls_token.expand(N, -1, -1),
// x), dim=1)).
RUNNER_LAYER_KIND(class_token) {
  LayerKind kind;
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    require_tokens(node, in[0]);
    Shape out = in[0];
    out.h += 1;
    return out;
  };
  kind.params = [](const Node& node, const std::vector<Shape>& in) {
    return std::vector<ParamSpec>{
        embedding_param(node, {1, 1, in[0].c}, ParamInit::normal, kClassTokenStd)};
  };
  kind.flops = [](const Node&, const std::vector<Shape>&) { return std::int64_t{0}; };  // a copy
  return kind;
}

// x + pos_embed, the learned [1, T, C] the same for every image.
RUNNER_LAYER_KIND(position_embedding) {
  LayerKind kind;
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    require_tokens(node, in[0]);
    return in[0];
  };
  kind.params = [](const Node& node, const std::vector<Shape>& in) {
    return std::vector<ParamSpec>{
        embedding_param(node, {1, in[0].h, in[0].c}, ParamInit::truncated_normal, kPositionStd)};
  };
  return kind;
}

// T tokens of C features -> flat C: x[:, 0] (select: class) or x.mean(dim=1) (select: mean).
RUNNER_LAYER_KIND(token_select) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    // The schema admits class and mean only.
    a.select = spec.attributes.value("select", "class") == "mean" ? TokenSelect::mean
                                                                  : TokenSelect::class_token;
  };
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    require_tokens(node, in[0]);
    return Shape{in[0].c, 1, 1, true};
  };
  kind.flops = [](const Node& node, const std::vector<Shape>& in) {
    return node.attrs.select == TokenSelect::mean ? in[0].elements() : std::int64_t{0};
  };
  return kind;
}

}  // namespace runner
