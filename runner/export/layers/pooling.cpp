// The pools as ONNX's MaxPool, AveragePool (PyTorch's floor mode, padding counted in the mean)
// and GlobalAveragePool.
#include "runner/export/onnx_layer.h"

namespace runner {
namespace {

std::vector<std::string> window_attributes(const LayerAttrs& a, bool padded) {
  std::vector<std::string> attributes = {
      onnx::ints_attribute("kernel_shape", {a.kernel_h, a.kernel_w}),
      onnx::ints_attribute("strides", {a.stride_h, a.stride_w})};
  if (padded)
    attributes.push_back(onnx::ints_attribute("pads", {a.pad_h, a.pad_w, a.pad_h, a.pad_w}));
  return attributes;
}

}  // namespace

RUNNER_ONNX_LAYER(max_pool2d) {
  return layer.add("MaxPool", {layer.inputs[0]}, window_attributes(layer.node.attrs, true));
}

// The zeros padded explicitly (Pad), then an unpadded AveragePool: the padding counted, as
// count_include_pad says, but OpenCV 4.6 ignores that attribute and divides by the window's
// part inside the image.
RUNNER_ONNX_LAYER(avg_pool2d) {
  const LayerAttrs& a = layer.node.attrs;
  std::string x = layer.inputs[0];
  if (a.pad_h > 0 || a.pad_w > 0) {
    x = layer.add("Pad", {x, layer.onnx.int64s(layer.node.name, "pads",
                                               {0, 0, a.pad_h, a.pad_w, 0, 0, a.pad_h, a.pad_w})});
  }
  return layer.add("AveragePool", {x}, window_attributes(a, false));
}

RUNNER_ONNX_LAYER(global_avg_pool2d) {
  const std::string pooled = layer.add("GlobalAveragePool", {layer.inputs[0]});
  if (!layer.node.attrs.flatten) return pooled;
  return layer.add("Flatten", {pooled}, {onnx::int_attribute("axis", 1)});
}

}  // namespace runner
