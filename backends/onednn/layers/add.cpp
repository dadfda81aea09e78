// add on oneDNN: a sum primitive in the first input's layout; its gradient is copied to
// every input.
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

class Add : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    auto md = inputs[0].get_desc();
    std::vector<dnnl::memory::desc> mds;
    std::unordered_map<int, dnnl::memory> args;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      dnnl::memory in = ctx.in_layout(inputs[k], md, *ctx.forward, node.name + " input layout");
      mds.push_back(md);
      args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(k)] = in;
    }
    dnnl::sum::primitive_desc pd(md, std::vector<float>(inputs.size(), 1.f), mds, ctx.engine);
    dnnl::memory dst = ctx.allocate(md);
    args[DNNL_ARG_DST] = dst;
    ctx.forward->add(node.name, dnnl::sum(pd), args);
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    for (const auto& grad : input_grads) {
      if (grad) ctx.copy(output_grad, grad, *ctx.backward, node.name + " backward");
    }
  }
};

}  // namespace

RUNNER_ONEDNN_LAYER(add) {
  return std::make_unique<Add>();
}

}  // namespace runner::onednn
