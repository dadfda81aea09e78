// The token layers of a vision transformer (graph/layers/tokens.cpp) on (N, T, C) tensors.
#include "runner/export/onnx_layer.h"

namespace runner {

// (N, C, H, W) -> (N, H*W, C).
RUNNER_ONNX_LAYER(to_tokens) {
  const std::string rows = layer.add(
      "Reshape", {layer.inputs[0],
                  layer.onnx.int64s(layer.node.name, "shape", {0, layer.input_shapes[0].c, -1})});
  return layer.add("Transpose", {rows}, {onnx::ints_attribute("perm", {0, 2, 1})});
}

// The learned (1, 1, C) token expanded to (N, 1, C) and put first; N read from the input's
// shape unless the batch size is fixed.
RUNNER_ONNX_LAYER(class_token) {
  const std::string& x = layer.inputs[0];
  const std::string& name = layer.node.name;
  const std::int64_t features = layer.input_shapes[0].c;
  std::string target;
  if (layer.batch > 0) {
    target = layer.onnx.int64s(name, "tokens_shape", {layer.batch, 1, features});
  } else {
    const std::string batch =
        layer.add("Slice", {layer.add("Shape", {x}), layer.onnx.int64s(name, "starts", {0}),
                            layer.onnx.int64s(name, "ends", {1})});
    target = layer.add("Concat", {batch, layer.onnx.int64s(name, "token_shape", {1, features})},
                       {onnx::int_attribute("axis", 0)});
  }
  const std::string tokens = layer.add("Expand", {layer.weight(""), target});
  return layer.add("Concat", {tokens, x}, {onnx::int_attribute("axis", 1)});
}

RUNNER_ONNX_LAYER(position_embedding) {
  return layer.add("Add", {layer.inputs[0], layer.weight("")});
}

// (N, T, C) -> (N, C): the first token, or the mean of all.
RUNNER_ONNX_LAYER(token_select) {
  if (layer.node.attrs.select == TokenSelect::mean) {
    return layer.add("ReduceMean", {layer.inputs[0]},
                     {onnx::ints_attribute("axes", {1}), onnx::int_attribute("keepdims", 0)});
  }
  return layer.add("Gather",
                   {layer.inputs[0], layer.onnx.int64_scalar(layer.node.name, "first", 0)},
                   {onnx::int_attribute("axis", 1)});
}

}  // namespace runner
