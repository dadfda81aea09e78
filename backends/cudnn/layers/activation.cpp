// leaky_relu, gelu (erf or tanh), sigmoid, tanh, silu, relu6, hardswish and hardsigmoid on the
// GPU: our element-wise kernels (cuDNN has no leaky, GELU, SiLU or hard activation mode, and its
// clipped ReLU's gradient at the clip is its own; one kernel for all keeps them alike), from the
// arithmetic in backends/common/activation_math.h.
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/layer_kernels.h"

namespace runner::cudnn {
namespace {

using activation_math::Activation;

class ActivationLayer : public CudnnLayer {
 public:
  explicit ActivationLayer(Activation kind) : kind_(kind) {}

  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    x_ = inputs[0];
    y_ = ctx.allocate_like(x_, node.name + " output");
    if (kind_ == Activation::gelu && node.attrs.approximate == GeluApproximation::tanh) {
      kind_ = Activation::gelu_tanh;
    }
    const Activation kind = kind_;
    const float slope = static_cast<float>(node.attrs.negative_slope);
    const DeviceTensor x = x_, y = y_;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::activation_forward(kind, slope, x.data, y.data, x.elements(), x.type, stream);
    });
    slope_ = slope;
    return y_;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    if (!input_grads[0]) return;
    const Activation kind = kind_;
    const float slope = slope_;
    const DeviceTensor x = x_, y = y_, dy = output_grad, dx = input_grads[0];
    ctx.backward->add(node.name + " backward", [=](cudaStream_t stream) {
      kernels::activation_backward(kind, slope, x.data, y.data, dy.data, dx.data, x.elements(),
                                   x.type, stream);
    });
  }

 private:
  Activation kind_;
  float slope_ = 0.f;
  DeviceTensor x_, y_;
};

}  // namespace

RUNNER_CUDNN_LAYER(leaky_relu) {
  return std::make_unique<ActivationLayer>(Activation::leaky_relu);
}
RUNNER_CUDNN_LAYER(gelu) {
  return std::make_unique<ActivationLayer>(Activation::gelu);
}
RUNNER_CUDNN_LAYER(sigmoid) {
  return std::make_unique<ActivationLayer>(Activation::sigmoid);
}
RUNNER_CUDNN_LAYER(tanh) {
  return std::make_unique<ActivationLayer>(Activation::tanh);
}
RUNNER_CUDNN_LAYER(silu) {
  return std::make_unique<ActivationLayer>(Activation::silu);
}
RUNNER_CUDNN_LAYER(relu6) {
  return std::make_unique<ActivationLayer>(Activation::relu6);
}
RUNNER_CUDNN_LAYER(hardswish) {
  return std::make_unique<ActivationLayer>(Activation::hardswish);
}
RUNNER_CUDNN_LAYER(hardsigmoid) {
  return std::make_unique<ActivationLayer>(Activation::hardsigmoid);
}

}  // namespace runner::cudnn
