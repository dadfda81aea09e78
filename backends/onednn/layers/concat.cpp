// concat on oneDNN: a concat primitive into a channels-last (or flat) output; the gradient of
// each input is its slice of the output gradient, read through a sub-memory view.
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

// Channels-last for images: every input's channel range is then a strided view that any
// offset can address (blocked layouts cannot start a view inside a 16-channel block).
dnnl::memory::desc plain_output(const dnnl::memory::dims& dims, dt type) {
  return dnnl::memory::desc(dims, type, dims.size() == 4 ? tag::acdb : tag::ab);
}

class Concat : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    std::vector<dnnl::memory::desc> mds;
    std::unordered_map<int, dnnl::memory> args;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      mds.push_back(inputs[k].get_desc());  // each input in its own layout
      args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(k)] = inputs[k];
    }
    dnnl::concat::primitive_desc pd(plain_output(ctx.dims_of(node.output), ctx.data), 1, mds,
                                    ctx.engine);
    dnnl::memory dst = ctx.allocate_activation(pd.dst_desc());  // (N, sum of C, H, W)
    args[DNNL_ARG_DST] = dst;
    ctx.forward->add(node.name, dnnl::concat(pd), args);
    for (const auto& in : inputs) channels_.push_back(in.get_desc().dims()[1]);
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    // The gradient buffer has the output's layout, but read it through a channels-last copy
    // should a later change give it another.
    const dnnl::memory::desc& md = output_grad.get_desc();
    dnnl::memory grad = ctx.in_layout(output_grad, plain_output(md.dims(), md.data_type()),
                                      *ctx.backward, node.name + " grad layout");
    dnnl::memory::dims offsets(grad.get_desc().dims().size(), 0);
    for (std::size_t k = 0; k < input_grads.size(); ++k) {
      if (input_grads[k]) {
        dnnl::memory::dims dims = grad.get_desc().dims();
        dims[1] = channels_[k];
        dnnl::memory slice(grad.get_desc().submemory_desc(dims, offsets), ctx.engine,
                           grad.get_data_handle());
        ctx.copy(slice, input_grads[k], *ctx.backward, node.name + " backward");
      }
      offsets[1] += channels_[k];
    }
  }

 private:
  std::vector<dnnl::memory::dim> channels_;  // per input
};

}  // namespace

RUNNER_ONEDNN_LAYER(concat) {
  return std::make_unique<Concat>();
}

}  // namespace runner::onednn
