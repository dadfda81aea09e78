// class_token on the GPU: our kernels (token_kernels.h) write the FP32 token, rounded to the
// activations' type, before each image's tokens; the backward pass drops token 0 from the
// gradient and sums it over the images into the token's FP32 gradient.
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/token_kernels.h"

namespace runner::cudnn {
namespace {

class ClassToken : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    const DeviceTensor x = inputs[0];
    const DeviceTensor y = ctx.allocate(node.output, node.name + " output");
    const Parameter& token = ctx.params->get(node.params[0]);
    token_grad_ = token.gradient;
    const float* value = token.value;
    const int images = ctx.batch, tokens = node.output.h - 1, features = node.output.c;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::prepend_token(x.data, value, y.data, images, tokens, features, x.type, stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    const DeviceTensor dy = output_grad, dx = input_grads[0];
    float* token_grad = token_grad_;
    const int images = ctx.batch, tokens = node.output.h - 1, features = node.output.c;
    ctx.backward->add(node.name + " backward", [=](cudaStream_t stream) {
      const std::size_t image = static_cast<std::size_t>(tokens + 1) * features;
      kernels::sum_images(dy.data, dy.type, images, image, features, token_grad, stream);
      if (dx)
        kernels::drop_first_token(dy.data, dx.data, images, tokens, features, dy.type, stream);
    });
  }

 private:
  float* token_grad_ = nullptr;
};

}  // namespace

RUNNER_CUDNN_LAYER(class_token) {
  return std::make_unique<ClassToken>();
}

}  // namespace runner::cudnn
