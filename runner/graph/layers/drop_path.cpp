// drop_path: stochastic depth for a residual branch (timm's DropPath): in training each image's
// whole input is zeroed with probability p and otherwise scaled by 1 / (1 - p); the identity in
// evaluation. Images, token sequences and flat features alike. The draw is dropout's hash
// (backends/common/dropout_math.h) of the image's index in the batch, so both backends and a
// resumed run drop the same images.
#include "runner/graph/layer_kind.h"

namespace runner {

RUNNER_LAYER_KIND(drop_path) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    a.p = spec.attributes.value("p", 0.0);  // required by the schema
  };
  return kind;
}

}  // namespace runner
