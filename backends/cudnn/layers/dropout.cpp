// dropout on the GPU: in training, our kernel draws this step's mask (the step read from device
// memory, backends/common/dropout_math.h, the same masks as the CPU backend) and keeps the
// factors for the backward pass; in evaluation, the input passes through.
#include "backends/common/dropout_math.h"
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/layer_kernels.h"

namespace runner::cudnn {
namespace {

class Dropout : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    if (!ctx.training) return inputs[0];
    const DeviceTensor x = inputs[0];
    const DeviceTensor y = ctx.allocate_like(x, node.name + " output");
    factors_ = ctx.allocate_like(x, node.name + " mask");
    const std::uint64_t seed = ctx.seed, layer = dropout_math::layer_key(node.name.c_str());
    const long long* step = ctx.step;
    const float p = static_cast<float>(node.attrs.p);
    float* factors = factors_.data;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::dropout_forward(seed, step, layer, p, x.data, y.data, factors, x.elements(), stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    if (!input_grads[0]) return;
    const DeviceTensor dy = output_grad, dx = input_grads[0], factors = factors_;
    ctx.backward->add(node.name + " backward", [=](cudaStream_t stream) {
      kernels::multiply(dy.data, factors.data, dx.data, dy.elements(), stream);
    });
  }

 private:
  DeviceTensor factors_;
};

}  // namespace

RUNNER_CUDNN_LAYER(dropout) {
  return std::make_unique<Dropout>();
}

}  // namespace runner::cudnn
