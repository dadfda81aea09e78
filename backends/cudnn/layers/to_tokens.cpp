// to_tokens on the GPU: each NCHW image's (C, H*W) transposed into its (H*W, C) tokens by our
// kernel (token_kernels.h); the backward pass transposes the gradient back.
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/token_kernels.h"

namespace runner::cudnn {
namespace {

class ToTokens : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    const DeviceTensor x = inputs[0];
    const DeviceTensor y = ctx.allocate(node.output, node.name + " output");
    const int channels = node.output.c, tokens = node.output.h;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::transpose_images(x.data, y.data, x.n, channels, tokens, x.type, stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    if (!input_grads[0]) return;
    const DeviceTensor dy = output_grad, dx = input_grads[0];
    const int channels = node.output.c, tokens = node.output.h;
    ctx.backward->add(node.name + " backward", [=](cudaStream_t stream) {
      kernels::transpose_images(dy.data, dx.data, dx.n, tokens, channels, dy.type, stream);
    });
  }
};

}  // namespace

RUNNER_CUDNN_LAYER(to_tokens) {
  return std::make_unique<ToTokens>();
}

}  // namespace runner::cudnn
