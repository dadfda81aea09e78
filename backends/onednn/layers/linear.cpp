// linear on oneDNN: an inner product over flat (N, C) inputs, with an optional fused ReLU.
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

class Linear : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const LayerAttrs& a = node.attrs;
    auto src_md = inputs[0].get_desc();                                      // (N, Cin)
    dnnl::memory::desc dst_md(ctx.dims_of(node.output), ctx.data, tag::ab);  // (N, Cout)
    forward_pd_ =
        prefer_given_layouts<dnnl::inner_product_forward::primitive_desc>([&](bool given) {
          const auto weights = weights_desc(ctx, node.params[0].dims, ctx.data, given);
          auto desc =
              a.bias
                  ? dnnl::inner_product_forward::desc(ctx.forward_kind(), src_md, weights,
                                                      BuildContext::any({a.out_features}), dst_md)
                  : dnnl::inner_product_forward::desc(ctx.forward_kind(), src_md, weights, dst_md);
          return dnnl::inner_product_forward::primitive_desc(desc, ctx.output_attr(), ctx.engine);
        });
    src_ = inputs[0];
    dnnl::memory dst = ctx.allocate(dst_md);
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, src_},
        {DNNL_ARG_WEIGHTS,
         ctx.params->value(node.params[0], forward_pd_.weights_desc(), *ctx.refresh)},
        {DNNL_ARG_DST, dst}};
    if (a.bias) {
      args[DNNL_ARG_BIAS] =
          ctx.params->value(node.params[1], forward_pd_.bias_desc(), *ctx.refresh);
    }
    ctx.forward->add(node.name, dnnl::inner_product_forward(forward_pd_), args);
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    const LayerAttrs& a = node.attrs;
    const ParamSpec& weight = node.params[0];
    auto weights_pd =
        prefer_given_layouts<dnnl::inner_product_backward_weights::primitive_desc>([&](bool given) {
          // f32 gradients, whatever the data
          const auto weights = weights_desc(ctx, weight.dims, dt::f32, given);
          auto desc = a.bias ? dnnl::inner_product_backward_weights::desc(
                                   src_.get_desc(), weights, BuildContext::any({a.out_features}),
                                   output_grad.get_desc())
                             : dnnl::inner_product_backward_weights::desc(src_.get_desc(), weights,
                                                                          output_grad.get_desc());
          return dnnl::inner_product_backward_weights::primitive_desc(desc, ctx.engine,
                                                                      forward_pd_);
        });
    StepList gradient_layouts;  // run after the primitive, where its layout is not the master's
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, src_},
        {DNNL_ARG_DIFF_DST, output_grad},
        {DNNL_ARG_DIFF_WEIGHTS,
         ctx.params->gradient(weight.name, weights_pd.diff_weights_desc(), gradient_layouts)}};
    if (a.bias) {
      args[DNNL_ARG_DIFF_BIAS] =
          ctx.params->gradient(node.params[1].name, weights_pd.diff_bias_desc(), gradient_layouts);
    }
    ctx.backward->add(node.name + " backward weights",
                      dnnl::inner_product_backward_weights(weights_pd), args);
    ctx.backward->append(gradient_layouts);

    if (!input_grads[0]) return;
    auto data_pd =
        prefer_given_layouts<dnnl::inner_product_backward_data::primitive_desc>([&](bool given) {
          dnnl::inner_product_backward_data::desc desc(
              input_grads[0].get_desc(), weights_desc(ctx, weight.dims, ctx.data, given),
              output_grad.get_desc());
          return dnnl::inner_product_backward_data::primitive_desc(desc, ctx.engine, forward_pd_);
        });
    ctx.backward->add(
        node.name + " backward data", dnnl::inner_product_backward_data(data_pd),
        {{DNNL_ARG_DIFF_DST, output_grad},
         {DNNL_ARG_WEIGHTS, ctx.params->value(weight, data_pd.weights_desc(), *ctx.refresh)},
         {DNNL_ARG_DIFF_SRC, input_grads[0]}});
  }

 private:
  // The weights (or their gradient) as the primitives get them. Mixed precision asks for the
  // plain layout first (`given`): oneDNN's GEMM-based bf16 inner product is as fast as its
  // blocked kernel there (within a tenth, measured for LeNet's layers), and the FP32 gradient
  // then lands in the FP32 master's plain layout and the bf16 mirror is a plain conversion,
  // instead of two layout reorders of every weight per step. FP32 keeps the primitive's choice:
  // its GEMM path is up to 40 % slower in the forward pass.
  static dnnl::memory::desc weights_desc(const BuildContext& ctx, const dnnl::memory::dims& dims,
                                         dt type, bool given) {
    if (given && ctx.data == dt::bf16) return dnnl::memory::desc(dims, type, tag::ab);
    return BuildContext::any(dims, type);
  }

  dnnl::inner_product_forward::primitive_desc forward_pd_;
  dnnl::memory src_;
};

}  // namespace

RUNNER_ONEDNN_LAYER(linear) {
  return std::make_unique<Linear>();
}

}  // namespace runner::onednn
