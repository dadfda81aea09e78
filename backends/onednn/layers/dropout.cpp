// dropout on the CPU: in training, a host step multiplies the plain (NCHW) values by the mask
// of this step (backends/common/dropout_math.h) scaled by 1 / (1 - p), keeping the factors for
// the backward pass; in evaluation, the input passes through.
#include <vector>

#include "backends/common/dropout_math.h"
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

class Dropout : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    if (!ctx.training) return inputs[0];
    const dnnl::memory::dims dims = inputs[0].get_desc().dims();
    plain_ = dnnl::memory::desc(dims, dt::f32, dims.size() == 4 ? tag::abcd : tag::ab);
    dnnl::memory src = ctx.in_layout(inputs[0], plain_, *ctx.forward, node.name + " layout");
    dnnl::memory dst = ctx.allocate(plain_);
    const std::size_t count = plain_.get_size() / sizeof(float);
    factors_ = std::make_shared<std::vector<float>>(count);
    const std::size_t per_image = count / static_cast<std::size_t>(dims[0]);
    const float p = static_cast<float>(node.attrs.p);
    const float scale = 1.f / (1.f - p);
    const std::uint64_t layer = dropout_math::layer_key(node.name.c_str());
    const MaskSource masks = ctx.masks;
    ctx.forward->add(node.name, [=, factors = factors_] {
      const std::uint64_t key = dropout_math::step_key(masks.seed, *masks.step, layer);
      const std::uint64_t first = static_cast<std::uint64_t>(*masks.first_image) * per_image;
      const float* x = data_of(src);
      float* y = data_of(dst);
      float* f = factors->data();
      for (std::size_t i = 0; i < count; ++i) {
        f[i] = dropout_math::keeps(key, first + i, p) ? scale : 0.f;
        y[i] = x[i] * f[i];
      }
    });
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    if (!input_grads[0]) return;
    dnnl::memory dx = ctx.view_as(input_grads[0], plain_);
    const bool direct = static_cast<bool>(dx);
    if (!direct) dx = ctx.allocate(plain_);
    ctx.backward->add(node.name + " backward", [dy = output_grad, dx, factors = factors_] {
      const float* g = data_of(dy);
      float* out = data_of(dx);
      const float* f = factors->data();
      for (std::size_t i = 0; i < factors->size(); ++i) out[i] = g[i] * f[i];
    });
    if (!direct) ctx.copy(dx, input_grads[0], *ctx.backward, node.name + " input gradient layout");
  }

 private:
  dnnl::memory::desc plain_;
  std::shared_ptr<std::vector<float>> factors_;  // this step's mask times 1 / (1 - p)
};

}  // namespace

RUNNER_ONEDNN_LAYER(dropout) {
  return std::make_unique<Dropout>();
}

}  // namespace runner::onednn
