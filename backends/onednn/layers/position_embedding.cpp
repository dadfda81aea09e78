// position_embedding on oneDNN: a host step adds the learned (T, C) (in the activations' type: a
// bf16 mirror under mixed precision) to every image's (T, C) tokens; oneDNN 2.6's binary add
// broadcasts a tensor over the batch alone only with its reference kernel. Backward: the input's
// gradient is the output's (a copy), the embedding's FP32 gradient their sum over the images, in
// image order.
#include "backends/onednn/build_context.h"
#include "backends/onednn/host_values.h"

namespace runner::onednn {
namespace {

class PositionEmbedding : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const dt type = inputs[0].get_desc().data_type();
    const dnnl::memory::desc tokens = ctx.tokens_desc(node.output, type);
    const dnnl::memory x = ctx.in_layout(inputs[0], tokens, *ctx.forward, node.name + " layout");
    const dnnl::memory y = ctx.allocate_activation(tokens);
    const ParamSpec& spec = node.params[0];
    const dnnl::memory position =
        ctx.params->value(spec, plain_desc(spec.dims, type), *ctx.refresh);
    const std::size_t image = static_cast<std::size_t>(node.output.elements());
    ctx.forward->add(node.name, [x, y, position, batch = ctx.batch, image] {
      with_type(x, [&](auto element) {
        using T = decltype(element);
        const T *from = values_of<T>(x), *p = values_of<T>(position);
        T* to = values_of<T>(y);
#pragma omp parallel for schedule(static)
        for (int n = 0; n < batch; ++n)
          for (std::size_t i = 0; i < image; ++i)
            to[n * image + i] = from_float<T>(to_float(from[n * image + i]) + to_float(p[i]));
      });
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    const dnnl::memory::desc tokens =
        ctx.tokens_desc(node.output, output_grad.get_desc().data_type());
    const dnnl::memory dy =
        ctx.in_layout(output_grad, tokens, *ctx.backward, node.name + " gradient layout");
    StepList no_reorder;  // the master gradient is plain FP32: what is asked for here
    const ParamSpec& spec = node.params[0];
    const dnnl::memory grad = ctx.params->gradient(spec.name, plain_desc(spec.dims), no_reorder);
    const std::size_t image = static_cast<std::size_t>(node.output.elements());
    ctx.backward->add(node.name + " backward", [dy, grad, batch = ctx.batch, image] {
      with_type(dy, [&](auto element) {
        using T = decltype(element);
        const T* g = values_of<T>(dy);
        float* sum = values_of<float>(grad);
#pragma omp parallel for schedule(static)
        for (std::size_t i = 0; i < image; ++i) {
          float s = 0;
          for (int n = 0; n < batch; ++n) s += to_float(g[n * image + i]);
          sum[i] = s;
        }
      });
    });
    ctx.backward->append(no_reorder);
    if (input_grads[0]) ctx.copy(dy, input_grads[0], *ctx.backward, node.name + " backward");
  }
};

}  // namespace

RUNNER_ONEDNN_LAYER(position_embedding) {
  return std::make_unique<PositionEmbedding>();
}

}  // namespace runner::onednn
