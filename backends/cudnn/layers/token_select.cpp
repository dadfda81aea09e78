// token_select on the GPU: our kernels (token_kernels.h) read token 0 or the FP32 mean over the
// tokens into the flat (N, C) features, and spread the gradient back.
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/token_kernels.h"

namespace runner::cudnn {
namespace {

class TokenSelectLayer : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    const DeviceTensor x = inputs[0];
    const DeviceTensor y = ctx.allocate(node.output, node.name + " output");
    const int images = ctx.batch, features = node.output.c;
    const int tokens = static_cast<int>(x.elements() / images / features);
    const bool mean = node.attrs.select == TokenSelect::mean;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::select_tokens(x.data, y.data, images, tokens, features, mean, x.type, stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    if (!input_grads[0]) return;
    const DeviceTensor dy = output_grad, dx = input_grads[0];
    const int images = ctx.batch, features = node.output.c;
    const int tokens = static_cast<int>(dx.elements() / images / features);
    const bool mean = node.attrs.select == TokenSelect::mean;
    ctx.backward->add(node.name + " backward", [=](cudaStream_t stream) {
      kernels::select_tokens_backward(dy.data, dx.data, images, tokens, features, mean, dy.type,
                                      stream);
    });
  }
};

}  // namespace

RUNNER_CUDNN_LAYER(token_select) {
  return std::make_unique<TokenSelectLayer>();
}

}  // namespace runner::cudnn
