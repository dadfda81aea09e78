// max_pool2d and avg_pool2d: PyTorch's MaxPool2d / AvgPool2d (floor mode, padding counted);
// global_avg_pool2d: the mean of each channel (AdaptiveAvgPool2d(1), optionally flattened).
#include <fmt/format.h>

#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

LayerKind pool_kind() {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    read_window(spec, DefaultStride::kernel, a);
  };
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    return window_output(node, in[0], in[0].c);
  };
  kind.flops = [](const Node& node, const std::vector<Shape>&) {
    return node.output.elements() * node.attrs.kernel_h * node.attrs.kernel_w;
  };
  return kind;
}

}  // namespace

RUNNER_LAYER_KIND(max_pool2d) {
  return pool_kind();
}
RUNNER_LAYER_KIND(avg_pool2d) {
  return pool_kind();
}

RUNNER_LAYER_KIND(global_avg_pool2d) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    a.flatten = spec.attributes.value("flatten", false);
  };
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    require_image(node, in[0]);
    return Shape{in[0].c, 1, 1, node.attrs.flatten};
  };
  kind.flops = [](const Node&, const std::vector<Shape>& in) { return in[0].elements(); };
  return kind;
}

}  // namespace runner
