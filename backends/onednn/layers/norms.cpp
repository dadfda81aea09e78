// layer_norm and group_norm on oneDNN: the runner's kernels (backends/onednn/norm_kernels.h) as
// host steps, on the input's own layout where it is channels-last, in 16- or 8-channel blocks or
// NCHW (any other is reordered to channels-last first), the output in that same layout. The
// statistics are f32 whatever the activations are (bf16 too), as batch norm's; the weight and bias
// gradients are written into the parameter store's gradients, as batch norm's are.
#include <array>
#include <memory>
#include <vector>

#include "backends/common/bf16.h"
#include "backends/onednn/build_context.h"
#include "backends/onednn/host_values.h"
#include "backends/onednn/norm_kernels.h"

namespace runner::onednn {
namespace {

// `input` in a layout the kernels read, and that layout's channel block (NormTensor::block).
std::pair<dnnl::memory, int> in_kernel_layout(const BuildContext& ctx, const dnnl::memory& input,
                                              const std::string& label) {
  const dnnl::memory::dims dims = input.get_desc().dims();
  const dt type = input.get_desc().data_type();
  const int channels = static_cast<int>(dims[1]);
  const std::vector<std::pair<tag, int>> layouts =
      dims.size() == 2
          ? std::vector<std::pair<tag, int>>{{tag::ab, channels}}
          : std::vector<std::pair<tag, int>>{
                {tag::acdb, channels}, {tag::aBcd16b, 16}, {tag::aBcd8b, 8}, {tag::abcd, 1}};
  for (const auto& [layout, block] : layouts) {
    if (channels % block != 0) continue;
    if (dnnl::memory view = ctx.view_as(input, dnnl::memory::desc(dims, type, layout))) {
      return {view, block};
    }
  }
  const auto& [layout, block] = layouts.front();
  return {ctx.in_layout(input, dnnl::memory::desc(dims, type, layout), *ctx.forward, label), block};
}

class PerImageNorm : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const Shape& shape = node.output;
    const bool group_norm = node.type == "group_norm";
    auto [src, block] = in_kernel_layout(ctx, inputs[0], node.name + " layout");
    src_ = src;
    tensor_ = {ctx.batch, {shape.c, shape.h * shape.w, group_norm ? node.attrs.groups : 0}, block};
    dst_ = ctx.allocate_activation(src_.get_desc());
    if (node.attrs.affine) {
      const dnnl::memory::desc channels = plain_desc({shape.c});
      weight_ = ctx.params->value(node.params[0], channels, *ctx.refresh);
      bias_ = ctx.params->value(node.params[1], channels, *ctx.refresh);
    }
    const std::size_t sets = static_cast<std::size_t>(ctx.batch) * tensor_.sets.per_image();
    mean_ = std::make_shared<std::vector<float>>(sets);
    inverse_std_ = std::make_shared<std::vector<float>>(sets);
    // A view does not own its bytes: each step keeps the memories it views alive (a gradient
    // buffer may have no other owner once the net is built).
    ctx.forward->add(node.name, [t = tensor_, x = src_, y = dst_, w = weight_, b = bias_,
                                 eps = static_cast<float>(node.attrs.eps), mean = mean_,
                                 inverse_std = inverse_std_, viewed = inputs[0]] {
      with_type(x, [&](auto element) {
        using T = decltype(element);
        norm_forward<T>(t, values_of<T>(x), values_of<T>(y), values_of<float>(w),
                        values_of<float>(b), eps, mean->data(), inverse_std->data());
      });
    });
    return dst_;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    const bool affine = node.attrs.affine;
    if (!affine && !input_grads[0]) return;
    const dnnl::memory dy =
        ctx.in_layout(output_grad, dst_.get_desc(), *ctx.backward, node.name + " gradient layout");
    dnnl::memory dx =
        input_grads[0] ? ctx.view_as(input_grads[0], src_.get_desc()) : dnnl::memory();
    const bool direct = static_cast<bool>(dx);
    if (input_grads[0] && !direct) dx = ctx.allocate(src_.get_desc());
    StepList gradient_layouts;
    dnnl::memory weight_grad, bias_grad;
    if (affine) {
      const dnnl::memory::desc channels = plain_desc({node.output.c});
      weight_grad = ctx.params->gradient(node.params[0].name, channels, gradient_layouts);
      bias_grad = ctx.params->gradient(node.params[1].name, channels, gradient_layouts);
    }
    ctx.backward->add(
        node.name + " backward",
        [t = tensor_, x = src_, dy, dx, w = weight_, mean = mean_, inverse_std = inverse_std_,
         weight_grad, bias_grad, viewed = std::array{output_grad, input_grads[0]}] {
          with_type(x, [&](auto element) {
            using T = decltype(element);
            norm_backward<T>(t, values_of<T>(x), values_of<T>(dy), values_of<T>(dx),
                             values_of<float>(w), mean->data(), inverse_std->data(),
                             values_of<float>(weight_grad), values_of<float>(bias_grad));
          });
        });
    ctx.backward->append(gradient_layouts);
    if (input_grads[0] && !direct) {
      ctx.copy(dx, input_grads[0], *ctx.backward, node.name + " input gradient layout");
    }
  }

 private:
  NormTensor tensor_;
  dnnl::memory src_, dst_, weight_, bias_;
  // (batch, sets per image): the forward pass's statistics, which the backward pass reads.
  std::shared_ptr<std::vector<float>> mean_, inverse_std_;
};

}  // namespace

RUNNER_ONEDNN_LAYER(layer_norm) {
  return std::make_unique<PerImageNorm>();
}
RUNNER_ONEDNN_LAYER(group_norm) {
  return std::make_unique<PerImageNorm>();
}

}  // namespace runner::onednn
