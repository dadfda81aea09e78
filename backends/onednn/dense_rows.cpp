// nn.Linear over the rows of a matrix on oneDNN (dense_rows.h).
#include "backends/onednn/dense_rows.h"

namespace runner::onednn {
namespace {

// The weights (or their gradient) as the primitives get them. Mixed precision asks for the
// plain layout first (`given`): oneDNN's GEMM-based bf16 inner product is as fast as its
// blocked kernel there (within a tenth, measured for LeNet's layers), and the FP32 gradient
// then lands in the FP32 master's plain layout and the bf16 mirror is a plain conversion,
// instead of two layout reorders of every weight per step. FP32 keeps the primitive's choice:
// its GEMM path is up to 40 % slower in the forward pass.
dnnl::memory::desc weights_desc(const BuildContext& ctx, const dnnl::memory::dims& dims, dt type,
                                bool given) {
  if (given && ctx.data == dt::bf16) return dnnl::memory::desc(dims, type, tag::ab);
  return BuildContext::any(dims, type);
}

}  // namespace

dnnl::memory token_rows(const BuildContext& ctx, const dnnl::memory& m, StepList& steps,
                        const std::string& label) {
  const dnnl::memory::dims dims = m.get_desc().dims();
  const dt type = m.get_desc().data_type();
  const dnnl::memory tokens =
      ctx.in_layout(m, dnnl::memory::desc(dims, type, tag::acdb), steps, label);
  return dnnl::memory(dnnl::memory::desc({dims[0] * dims[2], dims[1]}, type, tag::ab), ctx.engine,
                      tokens.get_data_handle());
}

dnnl::memory DenseRows::forward(BuildContext& ctx, const dnnl::memory& x,
                                const dnnl::primitive_attr& attr) {
  const dnnl::memory::dim out = weight_.dims[0];
  auto src_md = x.get_desc();                                             // (rows, in)
  dnnl::memory::desc dst_md({src_md.dims()[0], out}, ctx.data, tag::ab);  // (rows, out)
  forward_pd_ = prefer_given_layouts<dnnl::inner_product_forward::primitive_desc>([&](bool given) {
    const auto weights = weights_desc(ctx, weight_.dims, ctx.data, given);
    auto desc =
        bias_ ? dnnl::inner_product_forward::desc(ctx.forward_kind(), src_md, weights,
                                                  BuildContext::any({out}), dst_md)
              : dnnl::inner_product_forward::desc(ctx.forward_kind(), src_md, weights, dst_md);
    return dnnl::inner_product_forward::primitive_desc(desc, attr, ctx.engine);
  });
  x_ = x;
  dnnl::memory dst = ctx.allocate_activation(dst_md);
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, x_},
      {DNNL_ARG_WEIGHTS, ctx.params->value(weight_, forward_pd_.weights_desc(), *ctx.refresh)},
      {DNNL_ARG_DST, dst}};
  if (bias_) args[DNNL_ARG_BIAS] = ctx.params->value(*bias_, forward_pd_.bias_desc(), *ctx.refresh);
  ctx.forward->add(label_, dnnl::inner_product_forward(forward_pd_), args);
  return dst;
}

void DenseRows::backward(BuildContext& ctx, const dnnl::memory& dy, const dnnl::memory& dx) {
  const dnnl::memory::dim out = weight_.dims[0];
  auto weights_pd =
      prefer_given_layouts<dnnl::inner_product_backward_weights::primitive_desc>([&](bool given) {
        // f32 gradients, whatever the data
        const auto weights = weights_desc(ctx, weight_.dims, dt::f32, given);
        auto desc = bias_ ? dnnl::inner_product_backward_weights::desc(
                                x_.get_desc(), weights, BuildContext::any({out}), dy.get_desc())
                          : dnnl::inner_product_backward_weights::desc(x_.get_desc(), weights,
                                                                       dy.get_desc());
        return dnnl::inner_product_backward_weights::primitive_desc(desc, ctx.engine, forward_pd_);
      });
  StepList gradient_layouts;  // run after the primitive, where its layout is not the master's
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, x_},
      {DNNL_ARG_DIFF_DST, dy},
      {DNNL_ARG_DIFF_WEIGHTS,
       ctx.params->gradient(weight_.name, weights_pd.diff_weights_desc(), gradient_layouts)}};
  if (bias_) {
    args[DNNL_ARG_DIFF_BIAS] =
        ctx.params->gradient(bias_->name, weights_pd.diff_bias_desc(), gradient_layouts);
  }
  ctx.backward->add(label_ + " backward weights", dnnl::inner_product_backward_weights(weights_pd),
                    args);
  ctx.backward->append(gradient_layouts);

  if (!dx) return;
  auto data_pd =
      prefer_given_layouts<dnnl::inner_product_backward_data::primitive_desc>([&](bool given) {
        dnnl::inner_product_backward_data::desc desc(
            dx.get_desc(), weights_desc(ctx, weight_.dims, ctx.data, given), dy.get_desc());
        return dnnl::inner_product_backward_data::primitive_desc(desc, ctx.engine, forward_pd_);
      });
  ctx.backward->add(
      label_ + " backward data", dnnl::inner_product_backward_data(data_pd),
      {{DNNL_ARG_DIFF_DST, dy},
       {DNNL_ARG_WEIGHTS, ctx.params->value(weight_, data_pd.weights_desc(), *ctx.refresh)},
       {DNNL_ARG_DIFF_SRC, dx}});
}

}  // namespace runner::onednn
