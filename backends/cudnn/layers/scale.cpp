// scale on the GPU: our kernels (layer_kernels.h) with the FP32 weight, one factor per channel
// (spread H*W, period C; a flat input is (N, C, 1, 1)); the weight's FP32 gradient sums dy * x
// over the batch and the positions.
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/layer_kernels.h"

namespace runner::cudnn {
namespace {

class ChannelScale : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    x_ = inputs[0];
    const Parameter& weight = ctx.params->get(node.params[0]);
    weight_ = weight.value;
    weight_grad_ = weight.gradient;
    DeviceTensor y = ctx.allocate_like(x_, node.name + " output");
    const DeviceTensor x = x_;
    const float* w = weight_;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::multiply_broadcast(x.data, x.type, w, DataType::f32, y.data, x.elements(),
                                  static_cast<std::size_t>(x.h) * x.w, x.c, stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    const DeviceTensor x = x_, dy = output_grad, dx = input_grads[0];
    const float* w = weight_;
    float* dw = weight_grad_;
    ctx.backward->add(node.name + " backward", [=](cudaStream_t stream) {
      const std::size_t plane = static_cast<std::size_t>(x.h) * x.w;
      if (dx) {
        kernels::multiply_broadcast(dy.data, dy.type, w, DataType::f32, dx.data, dy.elements(),
                                    plane, x.c, stream);
      }
      kernels::sum_products(dy.data, x.data, dy.type, dw, DataType::f32, x.c, x.n, plane, stream);
    });
  }

 private:
  DeviceTensor x_;
  const float* weight_ = nullptr;
  float* weight_grad_ = nullptr;
};

}  // namespace

RUNNER_CUDNN_LAYER(scale) {
  return std::make_unique<ChannelScale>();
}

}  // namespace runner::cudnn
