// conv2d on oneDNN: direct convolution, layouts chosen by the primitive (format `any`).
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

class Conv2d : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const LayerAttrs& a = node.attrs;
    const ParamSpec& weight = node.params[0];
    strides_ = {a.stride_h, a.stride_w};
    padding_ = {a.pad_h, a.pad_w};
    auto src_any = BuildContext::any(inputs[0].get_desc().dims());
    auto weights_any = BuildContext::any(weight.dims);
    auto dst_any = BuildContext::any(ctx.dims_of(node.output));
    auto desc = a.bias ? dnnl::convolution_forward::desc(
                             ctx.forward_kind(), dnnl::algorithm::convolution_direct, src_any,
                             weights_any, BuildContext::any({a.out_channels}), dst_any, strides_,
                             padding_, padding_)
                       : dnnl::convolution_forward::desc(
                             ctx.forward_kind(), dnnl::algorithm::convolution_direct, src_any,
                             weights_any, dst_any, strides_, padding_, padding_);
    forward_pd_ = dnnl::convolution_forward::primitive_desc(desc, ctx.engine);

    // (N, Cin, H, W) in the layout the convolution wants
    src_ = ctx.in_layout(inputs[0], forward_pd_.src_desc(), *ctx.forward, node.name + " src layout");
    weights_ = ctx.params->value(weight, forward_pd_.weights_desc(), *ctx.refresh);
    dnnl::memory dst = ctx.allocate(forward_pd_.dst_desc());  // (N, Cout, Ho, Wo)
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst}};
    if (a.bias) {
      args[DNNL_ARG_BIAS] = ctx.params->value(node.params[1], forward_pd_.bias_desc(), *ctx.refresh);
    }
    ctx.forward->add(node.name, dnnl::convolution_forward(forward_pd_), args);
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    const LayerAttrs& a = node.attrs;
    const ParamSpec& weight = node.params[0];
    auto weights_any = BuildContext::any(weight.dims);
    auto src_any = BuildContext::any(src_.get_desc().dims());
    auto diff_dst_any = BuildContext::any(output_grad.get_desc().dims());
    auto weights_desc =
        a.bias ? dnnl::convolution_backward_weights::desc(
                     dnnl::algorithm::convolution_direct, src_any, weights_any,
                     BuildContext::any({a.out_channels}), diff_dst_any, strides_, padding_, padding_)
               : dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct,
                                                          src_any, weights_any, diff_dst_any,
                                                          strides_, padding_, padding_);
    dnnl::convolution_backward_weights::primitive_desc weights_pd(weights_desc, ctx.engine,
                                                                  forward_pd_);
    StepList gradient_layouts;  // run after the primitive, where its layout is not the master's
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, ctx.in_layout(src_, weights_pd.src_desc(), *ctx.backward, node.name + " src layout")},
        {DNNL_ARG_DIFF_DST, ctx.in_layout(output_grad, weights_pd.diff_dst_desc(), *ctx.backward,
                                          node.name + " grad layout")},
        {DNNL_ARG_DIFF_WEIGHTS,
         ctx.params->gradient(weight.name, weights_pd.diff_weights_desc(), gradient_layouts)}};
    if (a.bias) {
      args[DNNL_ARG_DIFF_BIAS] =
          ctx.params->gradient(node.params[1].name, weights_pd.diff_bias_desc(), gradient_layouts);
    }
    ctx.backward->add(node.name + " backward weights",
                      dnnl::convolution_backward_weights(weights_pd), args);
    ctx.backward->append(gradient_layouts);

    if (!input_grads[0]) return;  // the data needs no gradient
    // Layouts chosen by the primitive: fixing them to the forward's can force a slow reference
    // implementation when source and gradient layouts differ.
    dnnl::convolution_backward_data::desc data_desc(
        dnnl::algorithm::convolution_direct, BuildContext::any(src_.get_desc().dims()), weights_any,
        BuildContext::any(output_grad.get_desc().dims()), strides_, padding_, padding_);
    dnnl::convolution_backward_data::primitive_desc data_pd(data_desc, ctx.engine, forward_pd_);
    dnnl::memory diff_dst =
        ctx.in_layout(output_grad, data_pd.diff_dst_desc(), *ctx.backward, node.name + " grad layout");
    dnnl::memory weights = ctx.params->value(weight, data_pd.weights_desc(), *ctx.refresh);
    bool same_layout = data_pd.diff_src_desc() == input_grads[0].get_desc();
    dnnl::memory diff_src = same_layout ? input_grads[0] : ctx.allocate(data_pd.diff_src_desc());
    ctx.backward->add(node.name + " backward data", dnnl::convolution_backward_data(data_pd),
                      {{DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DIFF_SRC, diff_src}});
    if (!same_layout) ctx.copy(diff_src, input_grads[0], *ctx.backward, node.name + " grad layout");
  }

 private:
  dnnl::memory::dims strides_, padding_;
  dnnl::convolution_forward::primitive_desc forward_pd_;
  dnnl::memory src_, weights_;
};

}  // namespace

std::unique_ptr<OnednnLayer> make_conv2d() { return std::make_unique<Conv2d>(); }

}  // namespace runner::onednn
