// max_pool2d and avg_pool2d: PyTorch's MaxPool2d / AvgPool2d (floor mode, padding counted).
#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

LayerKind pool_kind(const char* type) {
  LayerKind kind;
  kind.type = type;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    read_window(spec, DefaultStride::kernel, a);
  };
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    return window_output(node, in[0], in[0].c);
  };
  kind.params = [](const Node&, const std::vector<Shape>&) { return std::vector<ParamSpec>{}; };
  kind.flops = [](const Node& node, const std::vector<Shape>&) {
    return node.output.elements() * node.attrs.kernel_h * node.attrs.kernel_w;
  };
  return kind;
}

}  // namespace

LayerKind max_pool2d_kind() {
  return pool_kind("max_pool2d");
}
LayerKind avg_pool2d_kind() {
  return pool_kind("avg_pool2d");
}

}  // namespace runner
