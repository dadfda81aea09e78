// Layers that combine tensors: add, concat, mul (a gate of one value per channel broadcast over
// an image's positions), and scale (a learned factor per channel).
#include "runner/export/onnx_layer.h"

namespace runner {

RUNNER_ONNX_LAYER(add) {
  std::string sum = layer.inputs[0];
  for (std::size_t i = 1; i < layer.inputs.size(); ++i) {
    sum = layer.add("Add", {sum, layer.inputs[i]});
  }
  return sum;
}

RUNNER_ONNX_LAYER(concat) {
  return layer.add("Concat", layer.inputs, {onnx::int_attribute("axis", 1)});
}

RUNNER_ONNX_LAYER(mul) {
  const Shape &x = layer.input_shapes[0], &gate = layer.input_shapes[1];
  std::string g = layer.inputs[1];
  if (x.is_image() && !gate.is_image()) {  // (N, C) or one token (N, 1, C) -> (N, C, 1, 1)
    g = layer.add("Reshape", {g, layer.onnx.int64s(layer.node.name, "gate_shape", {0, x.c, 1, 1})});
  }
  return layer.add("Mul", {layer.inputs[0], g});
}

RUNNER_ONNX_LAYER(scale) {
  return layer.add(
      "Mul", {layer.inputs[0], layer.weight_as("weight", per_channel_dims(layer.input_shapes[0]))});
}

}  // namespace runner
