// flatten, linear and conv2d as ONNX's Flatten, Gemm (MatMul on tokens) and Conv; the weights
// keep PyTorch's layouts, which are ONNX's.
#include "runner/export/onnx_layer.h"

namespace runner {

RUNNER_ONNX_LAYER(flatten) {
  return layer.add("Flatten", {layer.inputs[0]}, {onnx::int_attribute("axis", 1)});
}

RUNNER_ONNX_LAYER(linear) {
  const Node& node = layer.node;
  if (!layer.input_shapes[0].tokens) {  // (N, C) x W^T + b
    std::vector<std::string> inputs = {layer.inputs[0], layer.weight("weight")};
    if (node.attrs.bias) inputs.push_back(layer.weight("bias"));
    return layer.add("Gemm", inputs, {onnx::int_attribute("transB", 1)});
  }
  // (N, T, C) x W^T: MatMul of each token, W^T stored as an initializer of its own.
  const ExportWeight& w = layer.values("weight");
  const std::string product = layer.add(
      "MatMul", {layer.inputs[0], layer.onnx.floats(node.name, "weight_transposed",
                                                    {w.dims[1], w.dims[0]}, transposed(w))});
  if (!node.attrs.bias) return product;
  return layer.add("Add", {product, layer.weight("bias")});
}

RUNNER_ONNX_LAYER(conv2d) {
  const LayerAttrs& a = layer.node.attrs;
  std::vector<std::string> inputs = {layer.inputs[0], layer.weight("weight")};
  if (a.bias) inputs.push_back(layer.weight("bias"));
  return layer.add("Conv", inputs,
                   {onnx::ints_attribute("kernel_shape", {a.kernel_h, a.kernel_w}),
                    onnx::ints_attribute("strides", {a.stride_h, a.stride_w}),
                    onnx::ints_attribute("pads", {a.pad_h, a.pad_w, a.pad_h, a.pad_w}),
                    onnx::ints_attribute("dilations", {a.dilation_h, a.dilation_w}),
                    onnx::int_attribute("group", a.groups)});
}

}  // namespace runner
