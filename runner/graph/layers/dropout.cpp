// dropout: PyTorch's Dropout (inverted: kept values are scaled by 1 / (1 - p); the identity in
// evaluation). The mask is a pure function of the run's seed, the optimizer step, the layer's
// name and the value's position in the batch (backends/common/dropout_math.h), so both backends
// draw the same masks, and a resumed run the same as an uninterrupted one.
#include "runner/graph/layer_kind.h"

namespace runner {

RUNNER_LAYER_KIND(dropout) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    a.p = spec.attributes.value("p", 0.5);
  };
  return kind;
}

}  // namespace runner
