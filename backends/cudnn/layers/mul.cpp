// mul on the GPU: our kernels (layer_kernels.h). The gate, of x's shape or one value per image
// and channel, multiplies `spread` consecutive values of x each (1, or H*W); its gradient is
// dy * x, summed over those values.
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/layer_kernels.h"

namespace runner::cudnn {
namespace {

class Mul : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    x_ = inputs[0];
    gate_ = inputs[1];
    DeviceTensor y = ctx.allocate_like(x_, node.name + " output");
    const DeviceTensor x = x_, gate = gate_;
    const std::size_t spread = x.elements() / gate.elements();
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::multiply_broadcast(x.data, x.type, gate.data, gate.type, y.data, x.elements(),
                                  spread, gate.elements(), stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    const DeviceTensor x = x_, gate = gate_, dy = output_grad, dx = input_grads[0],
                       dgate = input_grads[1];
    const std::size_t spread = x.elements() / gate.elements();
    ctx.backward->add(node.name + " backward", [=](cudaStream_t stream) {
      if (dx) {
        kernels::multiply_broadcast(dy.data, dy.type, gate.data, gate.type, dx.data, dy.elements(),
                                    spread, gate.elements(), stream);
      }
      if (dgate && spread == 1) {
        kernels::multiply_broadcast(dy.data, dy.type, x.data, x.type, dgate.data, dy.elements(), 1,
                                    dy.elements(), stream);
      } else if (dgate) {
        kernels::sum_products(dy.data, x.data, dy.type, dgate.data, dgate.type,
                              static_cast<int>(gate.elements()), 1, spread, stream);
      }
    });
  }

 private:
  DeviceTensor x_, gate_;
};

}  // namespace

RUNNER_CUDNN_LAYER(mul) {
  return std::make_unique<Mul>();
}

}  // namespace runner::cudnn
