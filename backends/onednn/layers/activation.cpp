// leaky_relu, gelu (erf or tanh), sigmoid, tanh, silu and relu6 on oneDNN: one eltwise primitive
// each way. The backward pass of sigmoid and tanh reads the output (cheaper: no exp again), the
// others the input. hardswish and hardsigmoid are own_activation.cpp's.
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

class Activation : public OnednnLayer {
 public:
  // alpha and beta: the algorithm's parameters (leaky_relu's slope is the layer's).
  Activation(dnnl::algorithm algorithm, bool backward_reads_output, float alpha = 0.f,
             float beta = 0.f)
      : algorithm_(algorithm),
        backward_reads_output_(backward_reads_output),
        alpha_(alpha),
        beta_(beta) {}

  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    if (algorithm_ == dnnl::algorithm::eltwise_relu) {
      alpha_ = static_cast<float>(node.attrs.negative_slope);
    }
    if (algorithm_ == dnnl::algorithm::eltwise_gelu_erf &&
        node.attrs.approximate == GeluApproximation::tanh) {
      algorithm_ = dnnl::algorithm::eltwise_gelu_tanh;
    }
    dnnl::eltwise_forward::desc desc(ctx.forward_kind(), algorithm_, inputs[0].get_desc(), alpha_,
                                     beta_);
    forward_pd_ = dnnl::eltwise_forward::primitive_desc(desc, ctx.engine);
    src_ = inputs[0];
    dst_ = ctx.allocate_activation(forward_pd_.dst_desc());
    ctx.forward->add(node.name, dnnl::eltwise_forward(forward_pd_),
                     {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}});
    return dst_;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    if (!input_grads[0]) return;
    const dnnl::memory& data = backward_reads_output_ ? dst_ : src_;
    dnnl::eltwise_backward::desc desc(algorithm_, output_grad.get_desc(), data.get_desc(), alpha_,
                                      beta_);
    dnnl::eltwise_backward::primitive_desc pd(desc, ctx.engine, forward_pd_);
    ctx.backward->add(node.name + " backward", dnnl::eltwise_backward(pd),
                      {{backward_reads_output_ ? DNNL_ARG_DST : DNNL_ARG_SRC, data},
                       {DNNL_ARG_DIFF_DST, output_grad},
                       {DNNL_ARG_DIFF_SRC, input_grads[0]}});
  }

 private:
  dnnl::algorithm algorithm_;
  bool backward_reads_output_;
  float alpha_, beta_;
  dnnl::eltwise_forward::primitive_desc forward_pd_;
  dnnl::memory src_, dst_;
};

}  // namespace

// oneDNN's relu with a non-zero alpha is the leaky ReLU.
RUNNER_ONEDNN_LAYER(leaky_relu) {
  return std::make_unique<Activation>(dnnl::algorithm::eltwise_relu, false);
}
RUNNER_ONEDNN_LAYER(gelu) {
  return std::make_unique<Activation>(dnnl::algorithm::eltwise_gelu_erf, false);
}
RUNNER_ONEDNN_LAYER(sigmoid) {
  return std::make_unique<Activation>(dnnl::algorithm::eltwise_logistic_use_dst_for_bwd, true);
}
RUNNER_ONEDNN_LAYER(tanh) {
  return std::make_unique<Activation>(dnnl::algorithm::eltwise_tanh_use_dst_for_bwd, true);
}
// swish is x * sigmoid(alpha x).
RUNNER_ONEDNN_LAYER(silu) {
  return std::make_unique<Activation>(dnnl::algorithm::eltwise_swish, false, 1.f);
}
// clip_v2, unlike clip, passes no gradient at the upper bound either: PyTorch's ReLU6 (hardtanh)
// passes none at 0 and at 6 (ActivationGolden checks both).
RUNNER_ONEDNN_LAYER(relu6) {
  return std::make_unique<Activation>(dnnl::algorithm::eltwise_clip_v2, false, 0.f, 6.f);
}

}  // namespace runner::onednn
