// layer_norm and group_norm on the GPU: our kernels (layer_kernels.h; cuDNN's normalisation calls
// have no per-position or per-group mode in the legacy API) on NCHW tensors, from the arithmetic
// in backends/common/norm_math.h that the CPU kernels share. Statistics are f32 whatever the
// activations; the weight and bias gradients are written into the parameter store's gradients.
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/layer_kernels.h"

namespace runner::cudnn {
namespace {

class PerImageNorm : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    const LayerAttrs& a = node.attrs;
    x_ = inputs[0];
    y_ = ctx.allocate_like(x_, node.name + " output");
    sets_ = {x_.c, x_.h * x_.w, node.type == "group_norm" ? a.groups : 0};
    if (a.affine) {
      weight_ = ctx.params->get(node.params[0]).value;
      bias_ = ctx.params->get(node.params[1]).value;
      weight_grad_ = ctx.params->get(node.params[0]).gradient;
      bias_grad_ = ctx.params->get(node.params[1]).gradient;
    }
    const std::size_t sets = static_cast<std::size_t>(x_.n) * sets_.per_image();
    mean_ = ctx.memory->array<float>(sets, node.name + " mean");
    inverse_std_ = ctx.memory->array<float>(sets, node.name + " inverse std");
    const norm_math::NormSets s = sets_;
    const DeviceTensor x = x_, y = y_;
    const float *w = weight_, *b = bias_;
    const float eps = static_cast<float>(a.eps);
    float *mean = mean_, *inverse_std = inverse_std_;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::norm_forward(s, x.n, x.data, y.data, x.type, w, b, eps, mean, inverse_std, stream);
    });
    return y_;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    if (!node.attrs.affine && !input_grads[0]) return;
    const norm_math::NormSets s = sets_;
    const DeviceTensor x = x_, dy = output_grad, dx = input_grads[0];
    const float *w = weight_, *mean = mean_, *inverse_std = inverse_std_;
    float *weight_grad = weight_grad_, *bias_grad = bias_grad_;
    ctx.backward->add(node.name + " backward", [=](cudaStream_t stream) {
      kernels::norm_backward(s, x.n, x.data, dy.data, dx ? dx.data : nullptr, x.type, w, mean,
                             inverse_std, weight_grad, bias_grad, stream);
    });
  }

 private:
  DeviceTensor x_, y_;
  norm_math::NormSets sets_;
  const float *weight_ = nullptr, *bias_ = nullptr;
  float *weight_grad_ = nullptr, *bias_grad_ = nullptr;
  float *mean_ = nullptr, *inverse_std_ = nullptr;
};

}  // namespace

RUNNER_CUDNN_LAYER(layer_norm) {
  return std::make_unique<PerImageNorm>();
}
RUNNER_CUDNN_LAYER(group_norm) {
  return std::make_unique<PerImageNorm>();
}

}  // namespace runner::cudnn
