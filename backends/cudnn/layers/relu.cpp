// relu on cuDNN: an activation forward, and its backward from the input and output.
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/cuda_check.h"

namespace runner::cudnn {
namespace {

class Relu : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    x_ = inputs[0];
    y_ = ctx.allocate_like(x_, node.name + " output");
    activation_ = std::make_unique<ActivationDescriptor>(CUDNN_ACTIVATION_RELU);
    const Libraries* libs = ctx.libs;
    const cudnnActivationDescriptor_t activation = activation_->get();
    const DeviceTensor x = x_, y = y_;
    ctx.forward->add(node.name, [=](cudaStream_t) {
      CUDNN_CHECK(cudnnActivationForward(libs->cudnn, activation, &kOne, x.cudnn(), x.data, &kZero,
                                         y.cudnn(), y.data));
    });
    return y_;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    if (!input_grads[0]) return;
    const Libraries* libs = ctx.libs;
    const cudnnActivationDescriptor_t activation = activation_->get();
    const DeviceTensor x = x_, y = y_, dy = output_grad, dx = input_grads[0];
    ctx.backward->add(node.name + " backward", [=](cudaStream_t) {
      CUDNN_CHECK(cudnnActivationBackward(libs->cudnn, activation, &kOne, y.cudnn(), y.data,
                                          dy.cudnn(), dy.data, x.cudnn(), x.data, &kZero,
                                          dx.cudnn(), dx.data));
    });
  }

 private:
  DeviceTensor x_, y_;
  std::unique_ptr<ActivationDescriptor> activation_;
};

}  // namespace

RUNNER_CUDNN_LAYER(relu) {
  return std::make_unique<Relu>();
}

}  // namespace runner::cudnn
