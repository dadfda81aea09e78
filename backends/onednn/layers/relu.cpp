// relu on oneDNN: an eltwise primitive in the input's layout, or nothing where another layer
// applies it (BuildContext::ReluPlacement); the backward pass reads the output (dst > 0).
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

constexpr auto kRelu = dnnl::algorithm::eltwise_relu_use_dst_for_bwd;

class Relu : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    dnnl::eltwise_forward::desc desc(ctx.forward_kind(), kRelu, inputs[0].get_desc(), 0.f, 0.f);
    forward_pd_ = dnnl::eltwise_forward::primitive_desc(desc, ctx.engine);
    placement_ = ctx.relu_placement;
    if (placement_ != BuildContext::ReluPlacement::own) {
      dst_ = inputs[0];
    } else {
      dst_ = ctx.allocate_activation(forward_pd_.dst_desc());
      ctx.forward->add(node.name, dnnl::eltwise_forward(forward_pd_),
                       {{DNNL_ARG_SRC, inputs[0]}, {DNNL_ARG_DST, dst_}});
    }
    return dst_;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    // After the pool or in the batch norm, the gradient memory is shared with the input and the
    // layer that applied the ReLU masks it: nothing to do.
    if (!input_grads[0] || placement_ == BuildContext::ReluPlacement::after_pool ||
        placement_ == BuildContext::ReluPlacement::in_input) {
      return;
    }
    dnnl::eltwise_backward::desc desc(kRelu, output_grad.get_desc(), dst_.get_desc(), 0.f, 0.f);
    dnnl::eltwise_backward::primitive_desc pd(desc, ctx.engine, forward_pd_);
    ctx.backward->add(node.name + " backward", dnnl::eltwise_backward(pd),
                      {{DNNL_ARG_DST, dst_},
                       {DNNL_ARG_DIFF_DST, output_grad},
                       {DNNL_ARG_DIFF_SRC, input_grads[0]}});
  }

 private:
  dnnl::eltwise_forward::primitive_desc forward_pd_;
  dnnl::memory dst_;
  BuildContext::ReluPlacement placement_ = BuildContext::ReluPlacement::own;
};

}  // namespace

RUNNER_ONEDNN_LAYER(relu) {
  return std::make_unique<Relu>();
}

}  // namespace runner::onednn
