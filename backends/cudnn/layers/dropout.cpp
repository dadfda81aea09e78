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
    // FP32 whatever the activations are: 1 / (1 - p) is not a 16-bit number in general.
    factors_ = static_cast<float*>(
        ctx.memory->allocate(x.elements() * sizeof(float), node.name + " mask"));
    const std::uint64_t seed = ctx.seed, layer = dropout_math::layer_key(node.name.c_str());
    const long long* step = ctx.step;
    const float p = static_cast<float>(node.attrs.p);
    float* factors = factors_;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::dropout_forward(seed, step, layer, p, x.data, y.data, factors, x.elements(), x.type,
                               stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    if (!input_grads[0]) return;
    const DeviceTensor dy = output_grad, dx = input_grads[0];
    const float* factors = factors_;
    ctx.backward->add(node.name + " backward", [=](cudaStream_t stream) {
      kernels::multiply(dy.data, factors, dx.data, dy.elements(), dy.type, stream);
    });
  }

 private:
  float* factors_ = nullptr;  // (N, C, H, W), FP32
};

}  // namespace

RUNNER_CUDNN_LAYER(dropout) {
  return std::make_unique<Dropout>();
}

}  // namespace runner::cudnn
