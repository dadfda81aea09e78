// add on oneDNN: a binary add of two inputs (a sum primitive for more) in the first input's
// layout, with the ReLU after it fused in where the net builder moves it here (`fuse_relu`); its
// gradient is every input's, which the net builder gives the same memory where the layouts agree
// (net.cpp's memory_owners); the others get a copy.
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

class Add : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    auto md = inputs[0].get_desc();
    std::vector<dnnl::memory> in;
    for (const auto& input : inputs) {
      in.push_back(ctx.in_layout(input, md, *ctx.forward, node.name + " input layout"));
    }
    dnnl::memory dst = ctx.allocate_activation(md);
    if (in.size() == 2) {  // the ReLU as a post-op
      dnnl::binary::desc desc(dnnl::algorithm::binary_add, md, md, md);
      dnnl::binary::primitive_desc pd(desc, ctx.output_attr(), ctx.engine);
      ctx.forward->add(node.name, dnnl::binary(pd),
                       {{DNNL_ARG_SRC_0, in[0]}, {DNNL_ARG_SRC_1, in[1]}, {DNNL_ARG_DST, dst}});
      return dst;
    }
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_DST, dst}};
    for (std::size_t k = 0; k < in.size(); ++k) {
      args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(k)] = in[k];
    }
    dnnl::sum::primitive_desc pd(md, std::vector<float>(in.size(), 1.f),
                                 std::vector<dnnl::memory::desc>(in.size(), md), ctx.engine);
    ctx.forward->add(node.name, dnnl::sum(pd), args);
    if (ctx.fuse_relu) ctx.relu_in_place(dst, node.name + " relu");
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    for (const auto& grad : input_grads) {
      if (grad && grad.get_data_handle() != output_grad.get_data_handle()) {
        ctx.copy(output_grad, grad, *ctx.backward, node.name + " backward");
      }
    }
  }
};

}  // namespace

RUNNER_ONEDNN_LAYER(add) {
  return std::make_unique<Add>();
}

}  // namespace runner::onednn
