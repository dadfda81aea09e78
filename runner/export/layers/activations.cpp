// The activations' ONNX exports (the kinds: graph/layers/activations.cpp and elementwise.cpp).
// Those opset 13 has no operator for are written as their definitions: silu x sigmoid(x),
// hardswish x hardsigmoid(x), gelu 0.5 x (1 + erf(x / sqrt 2)) or its tanh approximation.
#include <cmath>
#include <numbers>

#include "runner/export/onnx_layer.h"

namespace runner {
namespace {

std::string hard_sigmoid(const OnnxLayer& layer, const std::string& x) {  // relu6(x + 3) / 6
  return layer.add("HardSigmoid", {x},
                   {onnx::float_attribute("alpha", 1.f / 6), onnx::float_attribute("beta", 0.5f)});
}

std::string scalar(const OnnxLayer& layer, const char* what, double value) {
  return layer.onnx.scalar(layer.node.name, what, static_cast<float>(value));
}

}  // namespace

RUNNER_ONNX_LAYER(relu) {
  return layer.add("Relu", {layer.inputs[0]});
}

RUNNER_ONNX_LAYER(leaky_relu) {
  return layer.add(
      "LeakyRelu", {layer.inputs[0]},
      {onnx::float_attribute("alpha", static_cast<float>(layer.node.attrs.negative_slope))});
}

RUNNER_ONNX_LAYER(sigmoid) {
  return layer.add("Sigmoid", {layer.inputs[0]});
}

RUNNER_ONNX_LAYER(tanh) {
  return layer.add("Tanh", {layer.inputs[0]});
}

RUNNER_ONNX_LAYER(silu) {
  const std::string& x = layer.inputs[0];
  return layer.add("Mul", {x, layer.add("Sigmoid", {x})});
}

// 6 HardSigmoid(x) with alpha 1/6 and beta 0, min(max(x / 6, 0), 1) times 6, not Clip: OpenCV 4.6
// reads only Clip's opset-6 form (its bounds as attributes), which opset 13 does not allow, and
// no Min with a constant. Within a float's rounding of x (1e-7 relative) everywhere, 6 at
// infinity.
RUNNER_ONNX_LAYER(relu6) {
  const std::string fraction =
      layer.add("HardSigmoid", {layer.inputs[0]},
                {onnx::float_attribute("alpha", 1.f / 6), onnx::float_attribute("beta", 0.f)});
  return layer.add("Mul", {fraction, scalar(layer, "six", 6)});
}

RUNNER_ONNX_LAYER(hardsigmoid) {
  return hard_sigmoid(layer, layer.inputs[0]);
}

RUNNER_ONNX_LAYER(hardswish) {
  const std::string& x = layer.inputs[0];
  return layer.add("Mul", {x, hard_sigmoid(layer, x)});
}

RUNNER_ONNX_LAYER(gelu) {
  const std::string& x = layer.inputs[0];
  std::string inner;  // what 1 + f(.) is taken of: erf(x / sqrt 2), or the tanh form
  if (layer.node.attrs.approximate == GeluApproximation::tanh) {
    const std::string cube = layer.add("Mul", {x, layer.add("Mul", {x, x})});
    const std::string sum =
        layer.add("Add", {x, layer.add("Mul", {cube, scalar(layer, "coefficient", 0.044715)})});
    inner = layer.add("Tanh", {layer.add("Mul", {sum, scalar(layer, "sqrt_2_over_pi",
                                                             std::sqrt(2 / std::numbers::pi))})});
  } else {
    inner = layer.add(
        "Erf", {layer.add("Mul", {x, scalar(layer, "inverse_sqrt_2", 1 / std::numbers::sqrt2)})});
  }
  const std::string one_plus = layer.add("Add", {inner, scalar(layer, "one", 1)});
  return layer.add("Mul", {layer.add("Mul", {x, scalar(layer, "half", 0.5)}), one_plus});
}

}  // namespace runner
