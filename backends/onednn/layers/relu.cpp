// relu on oneDNN: an eltwise primitive in the input's layout.
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

class Relu : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    src_ = inputs[0];
    dnnl::eltwise_forward::desc desc(ctx.forward_kind(), dnnl::algorithm::eltwise_relu,
                                     src_.get_desc(), 0.f, 0.f);
    forward_pd_ = dnnl::eltwise_forward::primitive_desc(desc, ctx.engine);
    dnnl::memory dst = ctx.allocate(forward_pd_.dst_desc());
    ctx.forward->add(node.name, dnnl::eltwise_forward(forward_pd_),
                     {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst}});
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    if (!input_grads[0]) return;
    dnnl::eltwise_backward::desc desc(dnnl::algorithm::eltwise_relu, output_grad.get_desc(),
                                      src_.get_desc(), 0.f, 0.f);
    dnnl::eltwise_backward::primitive_desc pd(desc, ctx.engine, forward_pd_);
    ctx.backward->add(node.name + " backward", dnnl::eltwise_backward(pd),
                      {{DNNL_ARG_SRC, src_},
                       {DNNL_ARG_DIFF_DST, output_grad},
                       {DNNL_ARG_DIFF_SRC, input_grads[0]}});
  }

 private:
  dnnl::eltwise_forward::primitive_desc forward_pd_;
  dnnl::memory src_;
};

}  // namespace

std::unique_ptr<OnednnLayer> make_relu() { return std::make_unique<Relu>(); }

}  // namespace runner::onednn
