// flatten on oneDNN: a view of the plain (N, C, H, W) data as (N, C*H*W); a reorder to the
// plain layout first when the input is blocked. A flat input passes through.
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

class Flatten : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const dnnl::memory::desc& in = inputs[0].get_desc();
    // A flat input (a second flatten) stays as it is, as in PyTorch.
    plain_ =
        dnnl::memory::desc(in.dims(), in.data_type(), in.dims().size() == 2 ? tag::ab : tag::abcd);
    dnnl::memory plain = ctx.in_layout(inputs[0], plain_, *ctx.forward, node.name);
    dnnl::memory::desc flat(ctx.dims_of(node.output), in.data_type(), tag::ab);
    return dnnl::memory(flat, ctx.engine, plain.get_data_handle());  // same bytes
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    if (!input_grads[0]) return;
    dnnl::memory unflattened(plain_, ctx.engine, output_grad.get_data_handle());
    ctx.copy(unflattened, input_grads[0], *ctx.backward, node.name + " backward");
  }

 private:
  dnnl::memory::desc plain_;
};

}  // namespace

RUNNER_ONEDNN_LAYER(flatten) {
  return std::make_unique<Flatten>();
}

}  // namespace runner::onednn
