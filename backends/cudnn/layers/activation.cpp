// leaky_relu, gelu, sigmoid and tanh on the GPU: our element-wise kernels (cuDNN has no leaky
// or GELU activation mode; one kernel for the four keeps them alike), from the arithmetic in
// backends/common/activation_math.h.
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

}  // namespace runner::cudnn
