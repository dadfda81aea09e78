// concat: 2 to 8 inputs joined along channels (images of one height and width) or features (all
// flat), in the order of `inputs`: torch.cat(xs, dim=1).
#include <fmt/format.h>

#include "runner/graph/layer_kind.h"

namespace runner {

RUNNER_LAYER_KIND(concat) {
  LayerKind kind;
  kind.min_inputs = 2;
  kind.max_inputs = 8;
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    Shape out = in[0];
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (in[i].tokens) {
        throw_shape_error(node, fmt::format("joins images or flat features; input {} is the token "
                                            "sequence {}",
                                            i + 1, in[i].str()));
      }
    }
    for (std::size_t i = 1; i < in.size(); ++i) {
      if (in[i].flat != in[0].flat || in[i].h != in[0].h || in[i].w != in[0].w) {
        throw_shape_error(
            node, fmt::format("inputs must all be flat or all images of one height and width: "
                              "input 1 is {}, input {} is {}",
                              in[0].str(), i + 1, in[i].str()));
      }
      out.c += in[i].c;  // at most 8 inputs within max_features each: no overflow
    }
    if (out.c > graph_limits::max_features) {
      throw_shape_error(node, fmt::format("{} channels, more than the {} a layer may have", out.c,
                                          graph_limits::max_features));
    }
    return out;
  };
  kind.flops = [](const Node&, const std::vector<Shape>&) { return std::int64_t{0}; };  // copies
  return kind;
}

}  // namespace runner
