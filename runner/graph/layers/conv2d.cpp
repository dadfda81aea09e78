// conv2d: 2-D convolution with optional bias, groups and dilation, PyTorch's Conv2d semantics.
#include <fmt/format.h>

#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

// groups is not scaled by model.width, so a width that leaves out_channels indivisible by it is
// the config's mistake; named at the groups field with the numbers involved.
// `groups: depthwise` until the input's channels are known (bind).
constexpr int kDepthwise = 0;

void check_scaled_channels(const LayerSpec& spec, double width, const LayerAttrs& a) {
  if (a.groups == kDepthwise || a.out_channels % a.groups == 0) return;
  SourceLocation at = spec.where;
  at.path += ".groups";
  const std::string scaled =
      width == 1.0 ? fmt::format("out_channels {}", a.out_channels)
                   : fmt::format("out_channels {} times model.width {} = {}",
                                 read_int(spec, "out_channels", 1), width, a.out_channels);
  throw_user_error(at, fmt::format("{} is not divisible by groups {}", scaled, a.groups),
                   "groups must divide both the input and the output channels (model.width "
                   "scales out_channels, not groups)");
}

}  // namespace

RUNNER_LAYER_KIND(conv2d) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double width, LayerAttrs& a) {
    a.out_channels = read_scaled_count(spec, "out_channels", width);
    read_window(spec, DefaultStride::one, a);
    read_pair(spec, "dilation", 1, 1, a.dilation_h, a.dilation_w);
    const bool depthwise = spec.attributes.value("groups", nlohmann::json(1)) == "depthwise";
    a.groups = depthwise ? kDepthwise : read_int(spec, "groups", 1);
    a.bias = spec.attributes.value("bias", true);
    read_weight_init(spec, a);
    check_scaled_channels(spec, width, a);
  };
  // Depthwise: one group per input channel, whatever model.width made of the channels.
  kind.bind = [](Node& node, const std::vector<Shape>& in) {
    LayerAttrs& a = node.attrs;
    if (a.groups != kDepthwise) return;
    a.groups = in[0].c;
    if (!in[0].is_image() || a.out_channels % a.groups == 0) return;
    throw_shape_error(node, fmt::format("groups: depthwise needs out_channels {} to be a multiple "
                                        "of the input channels {} ({})",
                                        a.out_channels, in[0].c, in[0].str()));
  };
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    const LayerAttrs& a = node.attrs;
    require_image(node, in[0]);
    if (in[0].c % a.groups != 0) {
      throw_shape_error(node, fmt::format("input {} has {} channels, not divisible by groups {}",
                                          in[0].str(), in[0].c, a.groups));
    }
    return window_output(node, in[0], a.out_channels);
  };
  kind.params = [](const Node& node, const std::vector<Shape>& in) {
    const LayerAttrs& a = node.attrs;
    const int group_inputs = in[0].c / a.groups;  // each output reads its group's inputs only
    std::int64_t fan_in = static_cast<std::int64_t>(group_inputs) * a.kernel_h * a.kernel_w;
    std::vector<ParamSpec> params = {{node.name + ".weight",
                                      {a.out_channels, group_inputs, a.kernel_h, a.kernel_w},
                                      fan_in,
                                      weight_param_init(a)}};
    if (a.bias) params.push_back({node.name + ".bias", {a.out_channels}, fan_in});
    return params;
  };
  kind.flops = [](const Node& node, const std::vector<Shape>& in) {
    const LayerAttrs& a = node.attrs;
    std::int64_t macs = node.output.elements() * (in[0].c / a.groups) * a.kernel_h * a.kernel_w;
    return 2 * macs + (a.bias ? node.output.elements() : 0);
  };
  return kind;
}

}  // namespace runner
