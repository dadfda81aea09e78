// scale: a learned factor per channel of an image or per feature of a flat input, y = x * w[c]
// (ConvNeXt's and CaiT's layer scale, `gamma` there): one parameter `<name>.weight` of C values,
// all init_value at the start (ConvNeXt's layer_scale_init_value, 1e-6). Like a normalisation
// layer's scale it is left undecayed by weight_decay_exclude: [norm], as timm leaves every 1-D
// parameter.
#include "runner/graph/layer_kind.h"

namespace runner {

RUNNER_LAYER_KIND(scale) {
  LayerKind kind;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    a.init_value = spec.attributes.value("init_value", 1e-6);
  };
  kind.params = [](const Node& node, const std::vector<Shape>& in) {
    const std::int64_t channels = in[0].c;
    ParamSpec weight{node.name + ".weight", {channels}, channels, ParamInit::constant,
                     /*trainable=*/true,
                     /*normalization=*/true};
    weight.constant = node.attrs.init_value;
    return std::vector<ParamSpec>{weight};
  };
  return kind;
}

}  // namespace runner
