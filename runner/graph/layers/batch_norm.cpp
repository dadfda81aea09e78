// batch_norm2d: PyTorch's BatchNorm2d. Training normalises with the batch's statistics (biased
// variance) and updates the running statistics with the unbiased variance; evaluation uses the
// running statistics. The running mean and variance are buffers: saved in checkpoints under
// PyTorch's names, never given to the optimizer.
#include <fmt/format.h>

#include "runner/graph/layer_kind.h"

namespace runner {

RUNNER_LAYER_KIND(batch_norm2d) {
  LayerKind kind;
  kind.batch_statistics = true;
  kind.parse = [](const LayerSpec& spec, double, LayerAttrs& a) {
    a.eps = spec.attributes.value("eps", 1e-5);
    a.momentum = spec.attributes.value("momentum", 0.1);
    a.affine = spec.attributes.value("affine", true);
  };
  kind.infer_shape = [](const Node& node, const std::vector<Shape>& in) {
    require_image(node, in[0]);
    return in[0];
  };
  kind.params = [](const Node& node, const std::vector<Shape>& in) {
    const std::int64_t channels = in[0].c;
    std::vector<ParamSpec> params;
    if (node.attrs.affine) {  // trainable, and normalization (weight_decay_exclude: [norm])
      params.push_back({node.name + ".weight", {channels}, channels, ParamInit::ones, true, true});
      params.push_back({node.name + ".bias", {channels}, channels, ParamInit::zeros, true, true});
    }
    params.push_back(
        {node.name + ".running_mean", {channels}, channels, ParamInit::zeros, /*trainable=*/false});
    params.push_back(
        {node.name + ".running_var", {channels}, channels, ParamInit::ones, /*trainable=*/false});
    return params;
  };
  kind.flops = [](const Node& node, const std::vector<Shape>&) {
    return 2 * node.output.elements();  // a scale and a shift per value
  };
  return kind;
}

}  // namespace runner
