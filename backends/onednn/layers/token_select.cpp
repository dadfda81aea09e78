// token_select on oneDNN: a host step reads each image's (T, C) tokens into its flat (C) features,
// token 0 (select: class) or the mean over the tokens in FP32 (select: mean). Backward: token 0's
// gradient is the features', the others 0; or every token's is the features' / T.
#include <algorithm>

#include "backends/onednn/build_context.h"
#include "backends/onednn/host_values.h"

namespace runner::onednn {
namespace {

class TokenSelectLayer : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const dt type = inputs[0].get_desc().data_type();
    tokens_ = inputs[0].get_desc().dims()[2];
    const Shape in{node.output.c, static_cast<int>(tokens_), 1, false, true};
    x_desc_ = ctx.tokens_desc(in, type);
    const dnnl::memory x = ctx.in_layout(inputs[0], x_desc_, *ctx.forward, node.name + " layout");
    const dnnl::memory y =
        ctx.allocate_activation(dnnl::memory::desc(ctx.dims_of(node.output), type, tag::ab));
    const bool mean = node.attrs.select == TokenSelect::mean;
    ctx.forward->add(node.name,
                     [x, y, mean, batch = ctx.batch, tokens = tokens_, features = node.output.c] {
                       with_type(x, [&](auto element) {
                         using T = decltype(element);
                         const T* from = values_of<T>(x);
                         T* to = values_of<T>(y);
#pragma omp parallel for schedule(static)
                         for (int n = 0; n < batch; ++n) {
                           const T* image = from + n * tokens * features;
                           for (int c = 0; c < features; ++c) {
                             if (!mean) {
                               to[n * features + c] = image[c];
                               continue;
                             }
                             float sum = 0;
                             for (int t = 0; t < tokens; ++t)
                               sum += to_float(image[t * features + c]);
                             to[n * features + c] = from_float<T>(sum / static_cast<float>(tokens));
                           }
                         }
                       });
                     });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    if (!input_grads[0]) return;
    dnnl::memory dx = ctx.view_as(input_grads[0], x_desc_);
    const bool direct = static_cast<bool>(dx);
    if (!direct) dx = ctx.allocate(x_desc_);
    const bool mean = node.attrs.select == TokenSelect::mean;
    ctx.backward->add(
        node.name + " backward", [dy = output_grad, dx, mean, batch = ctx.batch, tokens = tokens_,
                                  features = node.output.c, viewed = input_grads[0]] {
          with_type(dy, [&](auto element) {
            using T = decltype(element);
            const T* g = values_of<T>(dy);
            T* out = values_of<T>(dx);
            const float share = mean ? 1.f / static_cast<float>(tokens) : 1.f;
#pragma omp parallel for schedule(static)
            for (int n = 0; n < batch; ++n) {
              T* image = out + n * tokens * features;
              for (int t = 0; t < tokens; ++t)
                for (int c = 0; c < features; ++c) {
                  const bool reached = mean || t == 0;
                  image[t * features + c] =
                      from_float<T>(reached ? to_float(g[n * features + c]) * share : 0.f);
                }
            }
          });
        });
    if (!direct) ctx.copy(dx, input_grads[0], *ctx.backward, node.name + " input gradient layout");
  }

 private:
  dnnl::memory::dim tokens_ = 0;
  dnnl::memory::desc x_desc_;  // (N, T, C)
};

}  // namespace

RUNNER_ONEDNN_LAYER(token_select) {
  return std::make_unique<TokenSelectLayer>();
}

}  // namespace runner::onednn
