// mul on oneDNN: a binary multiply. A second input of one value per channel ((C, 1, 1), or a
// flat (C)) is broadcast over the first's positions by the primitive, given in the first's
// layout (per_channel.h); one of the first's shape is read in the first's layout too.
// Backward: dx = dy * gate, with the same broadcast, and dgate = dy * x, summed over the
// positions where the gate was broadcast.
#include "backends/onednn/build_context.h"
#include "backends/onednn/per_channel.h"

namespace runner::onednn {
namespace {

dnnl::memory::desc plain_of(const dnnl::memory& m) {
  return plain_desc(m.get_desc().dims(), m.get_desc().data_type());
}

class Mul : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    x_ = inputs[0];
    const dnnl::memory::dims dims = x_.get_desc().dims(), gate_dims = inputs[1].get_desc().dims();
    broadcast_ = gate_dims != dims;
    if (!broadcast_) {
      gate_ = ctx.in_layout(inputs[1], x_.get_desc(), *ctx.forward, node.name + " input layout");
    } else {  // (N, C) or (N, C, 1, 1), as (N, C, 1, 1) in x's layout
      std::optional<dnnl::memory::desc> layout =
          factor_desc(x_.get_desc(), {dims[0], dims[1], 1, 1});
      if (!layout) {
        x_ = ctx.in_layout(x_, plain_of(x_), *ctx.forward, node.name + " input layout");
        layout = factor_desc(x_.get_desc(), {dims[0], dims[1], 1, 1});
      }
      const dnnl::memory plain =
          ctx.in_layout(inputs[1], plain_of(inputs[1]), *ctx.forward, node.name + " gate layout");
      gate_ = ctx.in_layout(reshaped(plain, {dims[0], dims[1], 1, 1}), *layout, *ctx.forward,
                            node.name + " gate layout");
    }
    dnnl::memory dst = ctx.allocate_activation(x_.get_desc());
    append_multiply(ctx, x_, gate_, dst, *ctx.forward, node.name);
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    const std::string label = node.name + " backward";
    if (input_grads[0])
      append_multiply(ctx, output_grad, gate_, input_grads[0], *ctx.backward, label);
    if (!input_grads[1]) return;
    // The gate's gradient in the layout it was read in (plain where broadcast), then in its
    // input's where that differs.
    const dnnl::memory::desc read = broadcast_ ? plain_of(input_grads[1]) : gate_.get_desc();
    dnnl::memory dgate = ctx.view_as(input_grads[1], read);
    const bool direct = static_cast<bool>(dgate);
    if (!direct) dgate = ctx.allocate(read);
    if (broadcast_) {
      append_channel_sums(ctx, output_grad, x_, dgate, false, *ctx.backward, label + " gate");
    } else {
      append_multiply(ctx, output_grad, x_, dgate, *ctx.backward, label + " gate");
    }
    if (!direct) ctx.copy(dgate, input_grads[1], *ctx.backward, label + " gate layout");
  }

 private:
  bool broadcast_ = false;
  dnnl::memory x_, gate_;  // gate_: (N, C, 1, 1) in x_'s layout when broadcast
};

}  // namespace

RUNNER_ONEDNN_LAYER(mul) {
  return std::make_unique<Mul>();
}

}  // namespace runner::onednn
