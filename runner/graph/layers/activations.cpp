// Element-wise activations beside relu: leaky_relu (negative_slope, PyTorch's default 0.01),
// gelu (the exact erf form, PyTorch's default), sigmoid and tanh. Shape-preserving, no
// parameters; FLOPs count one operation per value.
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
  return LayerKind{};
}

RUNNER_LAYER_KIND(sigmoid) {
  return LayerKind{};
}

RUNNER_LAYER_KIND(tanh) {
  return LayerKind{};
}

}  // namespace runner
