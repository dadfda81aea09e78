// to_tokens on oneDNN: an image in channels-last (NHWC) is its token sequence (N, H*W, C) byte for
// byte, so the layer is a reorder to channels-last where the input is in another layout (the
// convolution's blocked one) and nothing where it is not; its backward pass the reorder back.
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

class ToTokens : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const dnnl::memory::desc& in = inputs[0].get_desc();
    channels_last_ = dnnl::memory::desc(in.dims(), in.data_type(), tag::acdb);  // (N, C, H, W)
    image_ = ctx.in_layout(inputs[0], channels_last_, *ctx.forward, node.name);
    return dnnl::memory(ctx.tokens_desc(node.output, in.data_type()), ctx.engine,
                        image_.get_data_handle());  // (N, T, C): the same bytes
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    if (!input_grads[0]) return;
    grad_ = ctx.in_layout(output_grad, ctx.tokens_desc(node.output, channels_last_.data_type()),
                          *ctx.backward, node.name + " gradient layout");
    const dnnl::memory image_grad(channels_last_, ctx.engine, grad_.get_data_handle());
    ctx.copy(image_grad, input_grads[0], *ctx.backward, node.name + " backward");
  }

 private:
  dnnl::memory::desc channels_last_;
  dnnl::memory image_, grad_;  // own the bytes the returned views describe
};

}  // namespace

RUNNER_ONEDNN_LAYER(to_tokens) {
  return std::make_unique<ToTokens>();
}

}  // namespace runner::onednn
