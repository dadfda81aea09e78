// linear on oneDNN: an inner product over flat (N, C) inputs (dense_rows.h), with an optional
// fused ReLU; on a token sequence over its (N*T, C) rows (the (N, T, C) token layout read as a
// matrix), the output viewed as tokens again.
#include <optional>

#include "backends/onednn/build_context.h"
#include "backends/onednn/dense_rows.h"

namespace runner::onednn {
namespace {

class Linear : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    tokens_ = node.output.tokens;
    dense_.emplace(node.params[0], node.attrs.bias ? &node.params[1] : nullptr, node.name);
    const dnnl::memory x =
        tokens_ ? token_rows(ctx, inputs[0], *ctx.forward, node.name + " layout") : inputs[0];
    dst_ = dense_->forward(ctx, x, ctx.output_attr());  // (N, Cout) or (N*T, Cout)
    if (!tokens_) return dst_;
    return dnnl::memory(ctx.tokens_desc(node.output, ctx.data), ctx.engine, dst_.get_data_handle());
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    const dnnl::memory dy =
        tokens_ ? token_rows(ctx, output_grad, *ctx.backward, node.name + " gradient layout")
                : output_grad;
    if (!tokens_ || !input_grads[0]) return dense_->backward(ctx, dy, input_grads[0]);
    // A token sequence's gradient as rows, in the token layout (a copy where it is another).
    const dnnl::memory::desc& md = input_grads[0].get_desc();
    const dnnl::memory::desc layout(md.dims(), md.data_type(), tag::acdb);
    dnnl::memory in_layout = ctx.view_as(input_grads[0], layout);
    const bool direct = static_cast<bool>(in_layout);
    if (!direct) in_layout = ctx.allocate(layout);
    dense_->backward(ctx, dy, token_rows(ctx, in_layout, *ctx.backward, ""));  // a view: no step
    if (!direct) {
      ctx.copy(in_layout, input_grads[0], *ctx.backward, node.name + " input gradient layout");
    }
  }

 private:
  bool tokens_ = false;  // the input and output are token sequences, read as rows
  std::optional<DenseRows> dense_;
  dnnl::memory dst_;  // (N, Cout), or the (N*T, Cout) rows the token view describes
};

}  // namespace

RUNNER_ONEDNN_LAYER(linear) {
  return std::make_unique<Linear>();
}

}  // namespace runner::onednn
