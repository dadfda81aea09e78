// position_embedding on the GPU: our kernels (token_kernels.h) add the FP32 (T, C) embedding to
// every image's tokens, rounding once; the backward pass copies the gradient to the input's and
// sums it over the images into the embedding's FP32 gradient.
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/token_kernels.h"

namespace runner::cudnn {
namespace {

class PositionEmbedding : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    const DeviceTensor x = inputs[0];
    const DeviceTensor y = ctx.allocate_like(x, node.name + " output");
    const Parameter& position = ctx.params->get(node.params[0]);
    position_grad_ = position.gradient;
    const float* value = position.value;
    const int images = ctx.batch;
    const std::size_t image = static_cast<std::size_t>(node.output.elements());
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::add_to_images(x.data, value, y.data, images, image, x.type, stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    const DeviceTensor dy = output_grad;
    float* position_grad = position_grad_;
    const int images = ctx.batch;
    const std::size_t image = static_cast<std::size_t>(node.output.elements());
    ctx.backward->add(node.name + " backward", [=](cudaStream_t stream) {
      kernels::sum_images(dy.data, dy.type, images, image, image, position_grad, stream);
    });
    if (input_grads[0]) ctx.copy(dy, input_grads[0], *ctx.backward, node.name + " backward");
  }

 private:
  float* position_grad_ = nullptr;
};

}  // namespace

RUNNER_CUDNN_LAYER(position_embedding) {
  return std::make_unique<PositionEmbedding>();
}

}  // namespace runner::cudnn
