// Element-wise activations beside relu: leaky_relu (negative_slope, PyTorch's default 0.01),
// gelu (the exact erf form, PyTorch's default, or its tanh approximation), sigmoid, tanh, silu,
// relu6, hardswish and hardsigmoid. Shape-preserving, no parameters; FLOPs count one operation
// per value.
#include "runner/graph/layer_kind.h"

namespace runner {

RUNNER_LAYER_KIND(leaky_relu) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    a.negative_slope = spec.attributes.value("negative_slope", 0.01);
  };
  return kind;
}

RUNNER_LAYER_KIND(gelu) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    // The schema admits none and tanh only.
    a.approximate = spec.attributes.value("approximate", "none") == "tanh"
                        ? GeluApproximation::tanh
                        : GeluApproximation::none;
  };
  return kind;
}

RUNNER_LAYER_KIND(sigmoid) {
  return LayerKind{};
}

RUNNER_LAYER_KIND(tanh) {
  return LayerKind{};
}

RUNNER_LAYER_KIND(silu) {  // x * sigmoid(x), PyTorch's SiLU (swish)
  return LayerKind{};
}

RUNNER_LAYER_KIND(relu6) {  // min(max(x, 0), 6)
  return LayerKind{};
}

RUNNER_LAYER_KIND(hardswish) {  // x * relu6(x + 3) / 6
  return LayerKind{};
}

RUNNER_LAYER_KIND(hardsigmoid) {  // relu6(x + 3) / 6
  return LayerKind{};
}

}  // namespace runner
