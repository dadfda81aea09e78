// dropout on the CPU: in training, a host step multiplies the plain (NCHW, or (N, T, C) for
// tokens) values by the mask of this step (backends/common/dropout_math.h) scaled by
// 1 / (1 - p), keeping the factors for the backward pass; in evaluation, the input passes
// through. Values in f32 or bf16.
#include <vector>

#include "backends/common/bf16.h"
#include "backends/common/dropout_math.h"
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

// to[i] = from[i] * factors[i] over `count` values of the memories' type (f32 or bf16).
template <typename T>
void multiply(const dnnl::memory& from, const float* factors, const dnnl::memory& to,
              std::size_t count) {
  const T* x = static_cast<const T*>(from.get_data_handle());
  T* y = static_cast<T*>(to.get_data_handle());
  for (std::size_t i = 0; i < count; ++i) y[i] = from_float<T>(to_float(x[i]) * factors[i]);
}

void multiply(const dnnl::memory& from, const float* factors, const dnnl::memory& to,
              std::size_t count) {
  if (from.get_desc().data_type() == dt::bf16) return multiply<Bf16>(from, factors, to, count);
  multiply<float>(from, factors, to, count);
}

class Dropout : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    if (!ctx.training) return inputs[0];
    const dnnl::memory::dims dims = inputs[0].get_desc().dims();
    // The mask's order (dropout_math.h): PyTorch's, NCHW or (N, T, C) for tokens.
    const tag plain = node.output.tokens ? tag::acdb : dims.size() == 4 ? tag::abcd : tag::ab;
    plain_ = dnnl::memory::desc(dims, inputs[0].get_desc().data_type(), plain);
    dnnl::memory src = ctx.in_layout(inputs[0], plain_, *ctx.forward, node.name + " layout");
    dnnl::memory dst = ctx.allocate_activation(plain_);
    std::size_t count = 1;
    for (auto d : dims) count *= static_cast<std::size_t>(d);
    factors_ = std::make_shared<std::vector<float>>(count);
    const std::size_t per_image = count / static_cast<std::size_t>(dims[0]);
    const float p = static_cast<float>(node.attrs.p);
    const float scale = 1.f / (1.f - p);
    const std::uint64_t layer = dropout_math::layer_key(node.name.c_str());
    const MaskSource masks = ctx.masks;
    ctx.forward->add(node.name, [=, factors = factors_] {
      const std::uint64_t key = dropout_math::step_key(masks.seed, *masks.step, layer);
      const std::uint64_t first = static_cast<std::uint64_t>(*masks.first_image) * per_image;
      float* f = factors->data();
      for (std::size_t i = 0; i < count; ++i) {
        f[i] = dropout_math::keeps(key, first + i, p) ? scale : 0.f;
      }
      multiply(src, f, dst, count);
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
      multiply(dy, factors->data(), dx, factors->size());
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
