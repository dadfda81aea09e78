// drop_path on the CPU: in training, a host step multiplies each image by its factor of this step
// (backends/common/dropout_math.h: 0 or 1 / (1 - p)), in the input's layout where that keeps each
// image's values together (plain, channels-last, channel blocks; else a plain copy first), f32 or
// bf16; the factors are kept for the backward pass. In evaluation the input passes through.
#include <memory>
#include <vector>

#include "backends/common/dropout_math.h"
#include "backends/onednn/build_context.h"
#include "backends/onednn/host_values.h"

namespace runner::onednn {
namespace {

// Whether image n's values are the n-th run of elements / N in memory.
bool images_contiguous(const dnnl::memory::desc& md) {
  const auto offsets = element_offsets(md);
  if (offsets.empty()) return false;
  const dnnl::memory::dims dims = md.dims();
  dnnl::memory::dim per_image = 1;
  for (std::size_t d = 1; d < dims.size(); ++d) per_image *= dims[d];
  for (dnnl::memory::dim n = 0; n < dims[0]; ++n) {
    if (offsets[0][n] != n * per_image) return false;
  }
  return true;
}

// to = from * factors[n] for image n, `per_image` values each.
void scale_images(const dnnl::memory& from, const std::vector<float>& factors,
                  const dnnl::memory& to, std::size_t per_image) {
  with_type(from, [&](auto element) {
    using T = decltype(element);
    const T* x = values_of<T>(from);
    T* y = values_of<T>(to);
    const int batch = static_cast<int>(factors.size());
#pragma omp parallel for schedule(static)
    for (int n = 0; n < batch; ++n)
      for (std::size_t i = n * per_image; i < (n + 1) * per_image; ++i)
        y[i] = from_float<T>(to_float(x[i]) * factors[n]);
  });
}

class DropPath : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    if (!ctx.training) return inputs[0];
    const dnnl::memory::desc& in = inputs[0].get_desc();
    layout_ = in;
    if (!images_contiguous(in)) {
      const tag plain = node.output.flat ? tag::ab : node.output.tokens ? tag::acdb : tag::abcd;
      layout_ = dnnl::memory::desc(in.dims(), in.data_type(), plain);
    }
    const dnnl::memory x = ctx.in_layout(inputs[0], layout_, *ctx.forward, node.name + " layout");
    const dnnl::memory y = ctx.allocate_activation(layout_);
    factors_ = std::make_shared<std::vector<float>>(ctx.batch);
    const std::size_t per_image = static_cast<std::size_t>(node.output.elements());
    const float p = static_cast<float>(node.attrs.p);
    const std::uint64_t layer = dropout_math::layer_key(node.name.c_str());
    ctx.forward->add(node.name, [x, y, per_image, p, layer, masks = ctx.masks, factors = factors_] {
      const std::uint64_t key = dropout_math::step_key(masks.seed, *masks.step, layer);
      for (std::size_t n = 0; n < factors->size(); ++n) {
        (*factors)[n] = dropout_math::drop_path_factor(key, *masks.first_image + n, p);
      }
      scale_images(x, *factors, y, per_image);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    if (!input_grads[0]) return;
    const dnnl::memory dy =
        ctx.in_layout(output_grad, layout_, *ctx.backward, node.name + " gradient layout");
    dnnl::memory dx = ctx.view_as(input_grads[0], layout_);
    const bool direct = static_cast<bool>(dx);
    if (!direct) dx = ctx.allocate(layout_);
    const std::size_t per_image = static_cast<std::size_t>(node.output.elements());
    ctx.backward->add(node.name + " backward",
                      [dy, dx, per_image, factors = factors_, viewed = input_grads[0]] {
                        scale_images(dy, *factors, dx, per_image);
                      });
    if (!direct) ctx.copy(dx, input_grads[0], *ctx.backward, node.name + " input gradient layout");
  }

 private:
  dnnl::memory::desc layout_;                    // where the factors are applied
  std::shared_ptr<std::vector<float>> factors_;  // this step's, per image
};

}  // namespace

RUNNER_ONEDNN_LAYER(drop_path) {
  return std::make_unique<DropPath>();
}

}  // namespace runner::onednn
