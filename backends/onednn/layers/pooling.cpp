// max_pool2d and avg_pool2d on oneDNN (max keeps a workspace for its backward pass), with the
// ReLU of the layer before it when the net builder moves it here (`fuse_relu`).
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

class Pooling : public OnednnLayer {
 public:
  explicit Pooling(dnnl::algorithm algorithm) : algorithm_(algorithm) {}

  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const LayerAttrs& a = node.attrs;
    strides_ = {a.stride_h, a.stride_w};
    kernel_ = {a.kernel_h, a.kernel_w};
    padding_ = {a.pad_h, a.pad_w};
    dnnl::pooling_forward::desc desc(ctx.forward_kind(), algorithm_, inputs[0].get_desc(),
                                     BuildContext::any(ctx.dims_of(node.output)), strides_, kernel_,
                                     padding_, padding_);
    forward_pd_ = dnnl::pooling_forward::primitive_desc(desc, ctx.engine);
    dnnl::memory dst = ctx.allocate(forward_pd_.dst_desc());  // (N, C, Ho, Wo)
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, inputs[0]}, {DNNL_ARG_DST, dst}};
    if (forward_pd_.workspace_desc().get_size() > 0) {
      workspace_ = ctx.allocate(forward_pd_.workspace_desc());
      args[DNNL_ARG_WORKSPACE] = workspace_;
    }
    ctx.forward->add(node.name, dnnl::pooling_forward(forward_pd_), args);
    if (ctx.fuse_relu) {
      relu_pd_ = ctx.relu_in_place(dst, node.name + " relu");
      dst_ = dst;
    }
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    if (!input_grads[0]) return;
    if (dst_) ctx.relu_backward_in_place(relu_pd_, dst_, output_grad, node.name + " relu backward");
    dnnl::pooling_backward::desc desc(algorithm_, input_grads[0].get_desc(), output_grad.get_desc(),
                                      strides_, kernel_, padding_, padding_);
    dnnl::pooling_backward::primitive_desc pd(desc, ctx.engine, forward_pd_);
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_DIFF_DST, output_grad},
                                                  {DNNL_ARG_DIFF_SRC, input_grads[0]}};
    if (workspace_) args[DNNL_ARG_WORKSPACE] = workspace_;
    ctx.backward->add(node.name + " backward", dnnl::pooling_backward(pd), args);
  }

 private:
  dnnl::algorithm algorithm_;
  dnnl::memory::dims strides_, kernel_, padding_;
  dnnl::pooling_forward::primitive_desc forward_pd_;
  dnnl::memory workspace_;
  dnnl::eltwise_forward::primitive_desc relu_pd_;  // with dst_, when a ReLU follows the pooling
  dnnl::memory dst_;
};

}  // namespace

std::unique_ptr<OnednnLayer> make_max_pool2d() {
  return std::make_unique<Pooling>(dnnl::algorithm::pooling_max);
}
// PyTorch's AvgPool2d counts padded zeros by default (count_include_pad=True).
std::unique_ptr<OnednnLayer> make_avg_pool2d() {
  return std::make_unique<Pooling>(dnnl::algorithm::pooling_avg_include_padding);
}

}  // namespace runner::onednn
