// layer_norm and group_norm: per-image normalisations (batch_norm2d is batch_norm.cpp).
// layer_norm normalises over the channels at each position (ConvNeXt's channels-first LayerNorm;
// nn.LayerNorm(C) on a flat input), group_norm over each group of channels and every position
// (nn.GroupNorm). Both: biased variance, then weight[c] * xhat + bias[c], parameters named as
// PyTorch names them. No batch statistics: each image alone, so the backends may chunk batches.
#include <fmt/format.h>

#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

void read_norm_attrs(const LayerSpec& spec, LayerAttrs& a) {
  a.eps = spec.attributes.value("eps", 1e-5);
  a.affine = spec.attributes.value("affine", true);
}

// The schema asks eps > 0 of a config; a graph built another way is held to the same.
void check_eps(const Node& node) {
  if (!(node.attrs.eps > 0)) {
    throw_shape_error(node, fmt::format("eps {} must be above 0", node.attrs.eps));
  }
}

std::vector<ParamSpec> norm_params(const Node& node, const std::vector<Shape>& in) {
  if (!node.attrs.affine) return {};
  const std::int64_t channels = in[0].c;  // trainable, and normalization (weight_decay_exclude)
  return {{node.name + ".weight", {channels}, channels, ParamInit::ones, true, true},
          {node.name + ".bias", {channels}, channels, ParamInit::zeros, true, true}};
}

// Per value: the mean's add, the variance's subtract, square and add, the normalisation's
// subtract and multiply (the reciprocal square roots are per set, not counted), and the
// affine multiply and add.
std::int64_t norm_flops(const Node& node, const std::vector<Shape>&) {
  return (node.attrs.affine ? 8 : 6) * node.output.elements();
}

}  // namespace

RUNNER_LAYER_KIND(layer_norm) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) { read_norm_attrs(spec, a); };
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    check_eps(node);
    return in[0];
  };
  kind.params = norm_params;
  kind.flops = norm_flops;
  return kind;
}

RUNNER_LAYER_KIND(group_norm) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    read_norm_attrs(spec, a);
    a.groups = read_int(spec, "groups", 1);  // required by the schema; not scaled by width
  };
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    check_eps(node);
    if (in[0].tokens) {  // nn.GroupNorm reads dimension 1 as the channels: the tokens here
      throw_shape_error(node, fmt::format("normalises images or flat features, got the token "
                                          "sequence {}: use layer_norm",
                                          in[0].str()));
    }
    if (node.attrs.groups < 1 || in[0].c % node.attrs.groups != 0) {
      throw_shape_error(node, fmt::format("input {} has {} channels, not divisible by groups {}",
                                          in[0].str(), in[0].c, node.attrs.groups));
    }
    return in[0];
  };
  kind.params = norm_params;
  kind.flops = norm_flops;
  return kind;
}

}  // namespace runner
