// conv2d: 2-D convolution with optional bias, PyTorch's Conv2d semantics.
#include "runner/graph/layer_kind.h"

namespace runner {

RUNNER_LAYER_KIND(conv2d) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double width, LayerAttrs& a) {
    a.out_channels = read_scaled_count(spec, "out_channels", width);
    read_window(spec, DefaultStride::one, a);
    a.bias = spec.attributes.value("bias", true);
  };
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    return window_output(node, in[0], node.attrs.out_channels);
  };
  kind.params = [](const Node& node, const std::vector<Shape>& in) {
    const LayerAttrs& a = node.attrs;
    std::int64_t fan_in = static_cast<std::int64_t>(in[0].c) * a.kernel_h * a.kernel_w;
    std::vector<ParamSpec> params = {
        {node.name + ".weight", {a.out_channels, in[0].c, a.kernel_h, a.kernel_w}, fan_in}};
    if (a.bias) params.push_back({node.name + ".bias", {a.out_channels}, fan_in});
    return params;
  };
  kind.flops = [](const Node& node, const std::vector<Shape>& in) {
    const LayerAttrs& a = node.attrs;
    std::int64_t macs = node.output.elements() * in[0].c * a.kernel_h * a.kernel_w;
    return 2 * macs + (a.bias ? node.output.elements() : 0);
  };
  return kind;
}

}  // namespace runner
