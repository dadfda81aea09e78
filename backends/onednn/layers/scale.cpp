// scale on oneDNN: a binary multiply by the weight as (1, C, 1, 1), or (1, C) for a flat input,
// in the input's layout (per_channel.h; refreshed before each step where that is not the plain
// one) and the activations' type (bf16 programs read a mirror). Backward: dx = dy * weight,
// and the weight's FP32 gradient, the sum of dy * x over the images and the positions.
#include "backends/onednn/build_context.h"
#include "backends/onednn/per_channel.h"

namespace runner::onednn {
namespace {

class ChannelScale : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    x_ = inputs[0];
    const dnnl::memory::dims dims = x_.get_desc().dims();
    const dnnl::memory::dims per_channel =
        dims.size() == 4 ? dnnl::memory::dims{1, dims[1], 1, 1} : dnnl::memory::dims{1, dims[1]};
    std::optional<dnnl::memory::desc> layout = factor_desc(x_.get_desc(), per_channel);
    if (!layout) {
      x_ = ctx.in_layout(x_, plain_desc(dims, ctx.data), *ctx.forward, node.name + " layout");
      layout = factor_desc(x_.get_desc(), per_channel);
    }
    const dnnl::memory weight =
        ctx.params->value(node.params[0], plain_desc({dims[1]}, ctx.data), *ctx.refresh);
    weight_ = ctx.in_layout(reshaped(weight, per_channel), *layout, *ctx.refresh,
                            node.name + " weight layout");
    dnnl::memory dst = ctx.allocate_activation(x_.get_desc());
    append_multiply(ctx, x_, weight_, dst, *ctx.forward, node.name);
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    const std::string label = node.name + " backward";
    if (input_grads[0])
      append_multiply(ctx, output_grad, weight_, input_grads[0], *ctx.backward, label);
    const ParamSpec& spec = node.params[0];
    StepList no_reorder;  // the master gradient is plain FP32: what is asked for here
    const dnnl::memory grad = ctx.params->gradient(spec.name, plain_desc(spec.dims), no_reorder);
    append_channel_sums(ctx, output_grad, x_, grad, true, *ctx.backward, label + " weight");
    ctx.backward->append(no_reorder);
  }

 private:
  dnnl::memory x_, weight_;  // weight_: (1, C, 1, 1) or (1, C) in x_'s layout
};

}  // namespace

RUNNER_ONEDNN_LAYER(scale) {
  return std::make_unique<ChannelScale>();
}

}  // namespace runner::onednn
