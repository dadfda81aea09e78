// max_pool2d, avg_pool2d and global_avg_pool2d on oneDNN (max keeps a workspace for its backward
// pass), with the ReLU of the layer before it when the net builder moves it here (`fuse_relu`).
// A global pool's window is the whole input plane; a flat (N, C) output is its (N, C, 1, 1)
// output reordered to the plain layout (a blocked destination keeps oneDNN's optimised kernel).
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

class Pooling : public OnednnLayer {
 public:
  Pooling(dnnl::algorithm algorithm, bool global) : algorithm_(algorithm), global_(global) {}

  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const LayerAttrs& a = node.attrs;
    strides_ = {a.stride_h, a.stride_w};
    kernel_ = {a.kernel_h, a.kernel_w};
    padding_ = {a.pad_h, a.pad_w};
    dnnl::memory::desc dst_desc = ctx.data_any(ctx.dims_of(node.output));
    if (global_) {
      const dnnl::memory::dims in = inputs[0].get_desc().dims();
      strides_ = kernel_ = {in[2], in[3]};
      padding_ = {0, 0};
      dst_desc = ctx.data_any({in[0], in[1], 1, 1});
    }
    dnnl::pooling_forward::desc desc(ctx.forward_kind(), algorithm_, inputs[0].get_desc(), dst_desc,
                                     strides_, kernel_, padding_, padding_);
    forward_pd_ = dnnl::pooling_forward::primitive_desc(desc, ctx.engine);
    dnnl::memory dst = ctx.allocate_activation(forward_pd_.dst_desc());  // (N, C, Ho, Wo)
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
    if (!node.output.flat) return dst;
    const dnnl::memory plain = ctx.in_layout(dst, plain_4d(), *ctx.forward, node.name + " layout");
    return as_dims(plain, ctx.dims_of(node.output), tag::ab, ctx);
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    if (!input_grads[0]) return;
    if (dst_) ctx.relu_backward_in_place(relu_pd_, dst_, output_grad, node.name + " relu backward");
    // A flat output's gradient is plain (N, C): seen as (N, C, 1, 1), in the pool's layout.
    const dnnl::memory dy =
        node.output.flat
            ? ctx.in_layout(as_dims(output_grad, plain_4d().dims(), tag::abcd, ctx),
                            forward_pd_.dst_desc(), *ctx.backward, node.name + " gradient layout")
            : output_grad;
    dnnl::pooling_backward::desc desc(algorithm_, input_grads[0].get_desc(), dy.get_desc(),
                                      strides_, kernel_, padding_, padding_);
    dnnl::pooling_backward::primitive_desc pd(desc, ctx.engine, forward_pd_);
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_DIFF_DST, dy},
                                                  {DNNL_ARG_DIFF_SRC, input_grads[0]}};
    if (workspace_) args[DNNL_ARG_WORKSPACE] = workspace_;
    ctx.backward->add(node.name + " backward", dnnl::pooling_backward(pd), args);
  }

 private:
  dnnl::memory::desc plain_4d() const {
    const auto& dst = forward_pd_.dst_desc();
    return dnnl::memory::desc(dst.dims(), dst.data_type(), tag::abcd);
  }
  // The same plain bytes seen with other dims (N, C, 1, 1 and N, C).
  static dnnl::memory as_dims(const dnnl::memory& m, const dnnl::memory::dims& dims, tag layout,
                              const BuildContext& ctx) {
    return dnnl::memory(dnnl::memory::desc(dims, m.get_desc().data_type(), layout), ctx.engine,
                        m.get_data_handle());
  }

  dnnl::algorithm algorithm_;
  bool global_;
  dnnl::memory::dims strides_, kernel_, padding_;
  dnnl::pooling_forward::primitive_desc forward_pd_;
  dnnl::memory workspace_;
  dnnl::eltwise_forward::primitive_desc relu_pd_;  // with dst_, when a ReLU follows the pooling
  dnnl::memory dst_;
};

}  // namespace

RUNNER_ONEDNN_LAYER(max_pool2d) {
  return std::make_unique<Pooling>(dnnl::algorithm::pooling_max, false);
}
// PyTorch's AvgPool2d counts padded zeros by default (count_include_pad=True).
RUNNER_ONEDNN_LAYER(avg_pool2d) {
  return std::make_unique<Pooling>(dnnl::algorithm::pooling_avg_include_padding, false);
}
RUNNER_ONEDNN_LAYER(global_avg_pool2d) {
  return std::make_unique<Pooling>(dnnl::algorithm::pooling_avg_exclude_padding, true);
}

}  // namespace runner::onednn
