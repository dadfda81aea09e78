// conv2d on the 16-channel Winograd kernels (conv2d_winograd16.h): channels-last images (for 16
// channels the same bytes as oneDNN's 16-channel blocks, so neighbours need no reorder), plain
// (PyTorch-layout) weights transformed once per step, before the forward pass.
#include "backends/onednn/layers/conv2d_winograd16.h"

#include <vector>

#include "backends/onednn/winograd16.h"

namespace runner::onednn {
namespace {

using Transformed = std::shared_ptr<std::vector<float>>;  // shared with the steps that use it

class Winograd16Conv : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const dnnl::memory::dims dims = inputs[0].get_desc().dims();  // (N, 16, H, W)
    n_ = dims[0];
    h_ = static_cast<int>(dims[2]);
    w_ = static_cast<int>(dims[3]);
    images_ = dnnl::memory::desc(dims, dt::f32, tag::acdb);
    src_ = ctx.in_layout(inputs[0], images_, *ctx.forward, node.name + " src layout");
    weight_ = ctx.params->value(node.params[0], plain_desc(node.params[0].dims), *ctx.refresh);
    if (node.attrs.bias) {
      bias_ = ctx.params->value(node.params[1], plain_desc(node.params[1].dims), *ctx.refresh);
    }
    Transformed transformed = transformed_weights(ctx, node, false);
    dnnl::memory dst = ctx.allocate_activation(images_);  // (N, 16, H, W) channels-last
    ctx.forward->add(
        node.name, [=, src = src_, bias = bias_, relu = ctx.fuse_relu, n = n_, h = h_, w = w_] {
          winograd16::convolve(data_of(src), transformed->data(), bias ? data_of(bias) : nullptr,
                               relu, data_of(dst), n, h, w);
        });
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    dnnl::memory grad =
        ctx.in_layout(output_grad, images_, *ctx.backward, node.name + " grad layout");
    StepList gradient_layouts;  // after the kernel, where the master gradient has another layout
    dnnl::memory weight_grad = ctx.params->gradient(
        node.params[0].name, plain_desc(node.params[0].dims), gradient_layouts);
    dnnl::memory bias_grad =
        node.attrs.bias ? ctx.params->gradient(node.params[1].name, plain_desc(node.params[1].dims),
                                               gradient_layouts)
                        : dnnl::memory();
    ctx.backward->add(node.name + " backward weights", [=, src = src_, n = n_, h = h_, w = w_] {
      winograd16::weight_gradient(data_of(src), data_of(grad), data_of(weight_grad),
                                  bias_grad ? data_of(bias_grad) : nullptr, n, h, w);
    });
    ctx.backward->append(gradient_layouts);
    if (!input_grads[0]) return;
    Transformed transformed = transformed_weights(ctx, node, true);
    dnnl::memory input_grad = ctx.view_as(input_grads[0], images_);
    const bool same_layout = static_cast<bool>(input_grad);
    if (!same_layout) input_grad = ctx.allocate(images_);
    ctx.backward->add(node.name + " backward data", [=, n = n_, h = h_, w = w_] {
      winograd16::convolve(data_of(grad), transformed->data(), nullptr, false, data_of(input_grad),
                           n, h, w);
    });
    if (!same_layout) {
      ctx.copy(input_grad, input_grads[0], *ctx.backward, node.name + " grad layout");
    }
  }

 private:
  // The weights transformed for the forward pass or the data gradient, by a step appended to
  // the refresh list (run after each update, before the forward pass).
  Transformed transformed_weights(BuildContext& ctx, const Node& node, bool data_gradient) const {
    auto transformed = std::make_shared<std::vector<float>>(winograd16::kTransformedFloats);
    ctx.refresh->add(
        node.params[0].name + (data_gradient ? " winograd (data gradient)" : " winograd"),
        [transformed, weight = weight_, data_gradient] {
          winograd16::transform_weights(data_of(weight), data_gradient, transformed->data());
        });
    return transformed;
  }

  std::int64_t n_ = 0;
  int h_ = 0, w_ = 0;
  dnnl::memory::desc images_;
  dnnl::memory src_, weight_, bias_;
};

}  // namespace

bool winograd16_applies(const Node& node, const dnnl::memory::dims& input_dims) {
  const LayerAttrs& a = node.attrs;
  constexpr int C = winograd16::kChannels;
  return winograd16::available() && input_dims.size() == 4 && input_dims[1] == C &&
         a.out_channels == C && a.groups == 1 && a.kernel_h == 3 && a.kernel_w == 3 &&
         a.stride_h == 1 && a.stride_w == 1 && a.pad_h == 1 && a.pad_w == 1 && a.dilation_h == 1 &&
         a.dilation_w == 1;
}

std::unique_ptr<OnednnLayer> make_winograd16_conv() {
  return std::make_unique<Winograd16Conv>();
}

}  // namespace runner::onednn
