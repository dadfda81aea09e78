// mul: the element-wise product of two inputs, torch.mul(x, gate), the second either of the
// first's shape or one value per channel of an image (Cx1x1, or the flat C of a global pool and
// linear layers) that multiplies every position of its channel: squeeze-and-excitation's gate.
// Token sequences: the second of the first's shape only.
#include <fmt/format.h>

#include "runner/graph/layer_kind.h"

namespace runner {

RUNNER_LAYER_KIND(mul) {
  LayerKind kind;
  kind.min_inputs = 2;
  kind.max_inputs = 2;
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    const Shape &x = in[0], &gate = in[1];
    const bool per_channel = x.is_image() && gate.c == x.c && gate.h == 1 && gate.w == 1;
    if (gate == x || per_channel) return x;
    if (x.tokens) {
      throw_shape_error(node, fmt::format("input 2 must have input 1's shape: input 1 is {}, "
                                          "input 2 is {}",
                                          x.str(), gate.str()));
    }
    throw_shape_error(node, fmt::format("input 2 must have input 1's shape or one value per "
                                        "channel of it ({}x1x1 or a flat {}): input 1 is {}, "
                                        "input 2 is {}",
                                        x.c, x.c, x.str(), gate.str()));
  };
  return kind;
}

}  // namespace runner
