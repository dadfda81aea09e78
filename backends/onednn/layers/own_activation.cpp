// hardswish and hardsigmoid on the CPU: our loops over backends/common/activation_math.h, the
// arithmetic of the GPU kernels. oneDNN 2.6 has no hardsigmoid, and its hardswish passes no
// gradient at x = -3, where PyTorch passes -1/2 (and 1 at x = 3, where PyTorch's scalar CPU and
// CUDA kernels pass 3/2): ActivationGolden checks both against PyTorch. The loops read and write
// the input's own layout (every layout is the same to an element-wise function) unless it pads
// its channels, whose padding must stay zero (hardsigmoid(0) is 1/2): then a plain copy.
#include "backends/common/activation_math.h"
#include "backends/common/bf16.h"
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

// Whether `md` holds its elements and nothing else (no padding).
bool unpadded(const dnnl::memory::desc& md) {
  std::size_t elements = 1;
  for (auto d : md.dims()) elements *= static_cast<std::size_t>(d);
  return md.get_size() == elements * dnnl::memory::data_type_size(md.data_type());
}

// y = f(x), or with dy: dx = dy * f'(x), over `count` values of type T (float or Bf16).
template <typename T>
void apply_activation(activation_math::Activation kind, const dnnl::memory& x,
                      const dnnl::memory& dy, const dnnl::memory& out, std::size_t count) {
  const T* in = static_cast<const T*>(x.get_data_handle());
  const T* grad = dy ? static_cast<const T*>(dy.get_data_handle()) : nullptr;
  T* result = static_cast<T*>(out.get_data_handle());
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < count; ++i) {
    const float v = to_float(in[i]);
    // These kinds' derivatives read the input only (y unused).
    result[i] = from_float<T>(grad ? to_float(grad[i]) * activation_math::derivative(kind, v, 0, 0)
                                   : activation_math::forward(kind, v, 0));
  }
}

void apply_activation(activation_math::Activation kind, const dnnl::memory& x,
                      const dnnl::memory& dy, const dnnl::memory& out) {
  const dnnl::memory::desc md = x.get_desc();
  const std::size_t count = md.get_size() / dnnl::memory::data_type_size(md.data_type());
  if (md.data_type() == dt::bf16) return apply_activation<Bf16>(kind, x, dy, out, count);
  apply_activation<float>(kind, x, dy, out, count);
}

class OwnActivation : public OnednnLayer {
 public:
  explicit OwnActivation(activation_math::Activation kind) : kind_(kind) {}

  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const dnnl::memory::desc given = inputs[0].get_desc();
    desc_ = unpadded(given) ? given : plain_desc(given.dims(), given.data_type());
    src_ = ctx.in_layout(inputs[0], desc_, *ctx.forward, node.name + " layout");
    dnnl::memory dst = ctx.allocate_activation(desc_);
    ctx.forward->add(node.name,
                     [kind = kind_, x = src_, dst] { apply_activation(kind, x, {}, dst); });
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    if (!input_grads[0]) return;
    dnnl::memory dx = ctx.view_as(input_grads[0], desc_);
    const bool direct = static_cast<bool>(dx);
    if (!direct) dx = ctx.allocate(desc_);
    ctx.backward->add(node.name + " backward", [kind = kind_, x = src_, dy = output_grad, dx] {
      apply_activation(kind, x, dy, dx);
    });
    if (!direct) ctx.copy(dx, input_grads[0], *ctx.backward, node.name + " input gradient layout");
  }

 private:
  activation_math::Activation kind_;
  dnnl::memory::desc desc_;  // of the input, output and both gradients
  dnnl::memory src_;
};

}  // namespace

RUNNER_ONEDNN_LAYER(hardswish) {
  return std::make_unique<OwnActivation>(activation_math::Activation::hardswish);
}
RUNNER_ONEDNN_LAYER(hardsigmoid) {
  return std::make_unique<OwnActivation>(activation_math::Activation::hardsigmoid);
}

}  // namespace runner::onednn
