// class_token on oneDNN: a host step writes each image's T + 1 tokens, the learned one (in the
// activations' type: a bf16 mirror under mixed precision) and then the input's T, all in the
// (N, T, C) token layout. Backward: the input's gradient is the output's without token 0, and
// the token's FP32 gradient the sum of token 0's over the images, in image order.
#include <cstring>

#include "backends/onednn/build_context.h"
#include "backends/onednn/host_values.h"

namespace runner::onednn {
namespace {

class ClassToken : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const dt type = inputs[0].get_desc().data_type();
    Shape in = node.output;
    in.h -= 1;
    x_ = ctx.in_layout(inputs[0], ctx.tokens_desc(in, type), *ctx.forward, node.name + " layout");
    y_ = ctx.allocate_activation(ctx.tokens_desc(node.output, type));
    const dnnl::memory token =
        ctx.params->value(node.params[0], plain_desc({1, 1, in.c}, type), *ctx.refresh);
    // Bytes of one token and of one image's input tokens.
    const std::size_t token_bytes =
        static_cast<std::size_t>(in.c) * dnnl::memory::data_type_size(type);
    const std::size_t image_bytes = token_bytes * in.h;
    ctx.forward->add(node.name,
                     [x = x_, y = y_, token, batch = ctx.batch, token_bytes, image_bytes] {
                       const auto* from = static_cast<const char*>(x.get_data_handle());
                       auto* to = static_cast<char*>(y.get_data_handle());
                       for (int n = 0; n < batch; ++n) {
                         char* image = to + n * (token_bytes + image_bytes);
                         std::memcpy(image, token.get_data_handle(), token_bytes);
                         std::memcpy(image + token_bytes, from + n * image_bytes, image_bytes);
                       }
                     });
    return y_;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    const dnnl::memory dy =
        ctx.in_layout(output_grad, y_.get_desc(), *ctx.backward, node.name + " gradient layout");
    StepList no_reorder;  // the master gradient is plain FP32: what is asked for here
    const ParamSpec& spec = node.params[0];
    const dnnl::memory token_grad =
        ctx.params->gradient(spec.name, plain_desc(spec.dims), no_reorder);
    dnnl::memory dx = input_grads[0] ? ctx.view_as(input_grads[0], x_.get_desc()) : dnnl::memory();
    const bool direct = static_cast<bool>(dx);
    if (input_grads[0] && !direct) dx = ctx.allocate(x_.get_desc());
    const int features = node.output.c, tokens = node.output.h;
    ctx.backward->add(node.name + " backward", [=, batch = ctx.batch, viewed = input_grads[0]] {
      with_type(dy, [&](auto element) {
        using T = decltype(element);
        const T* g = values_of<T>(dy);
        const std::size_t image = static_cast<std::size_t>(tokens) * features;
        float* sum = values_of<float>(token_grad);
        for (int c = 0; c < features; ++c) sum[c] = 0;
        for (int n = 0; n < batch; ++n)
          for (int c = 0; c < features; ++c) sum[c] += to_float(g[n * image + c]);
        if (!dx) return;
        T* out = values_of<T>(dx);
        for (int n = 0; n < batch; ++n) {
          std::memcpy(out + n * (image - features), g + n * image + features,
                      (image - features) * sizeof(T));
        }
      });
    });
    ctx.backward->append(no_reorder);
    if (input_grads[0] && !direct) {
      ctx.copy(dx, input_grads[0], *ctx.backward, node.name + " input gradient layout");
    }
  }

 private:
  dnnl::memory x_, y_;  // (N, T, C) and (N, T + 1, C)
};

}  // namespace

RUNNER_ONEDNN_LAYER(class_token) {
  return std::make_unique<ClassToken>();
}

}  // namespace runner::onednn
