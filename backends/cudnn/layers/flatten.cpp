// flatten on cuDNN: a view of the dense (N, C, H, W) data as (N, C*H*W), which is PyTorch's
// flatten order; the backward pass copies the gradient into the input's gradient buffer.
#include "backends/cudnn/build_context.h"

namespace runner::cudnn {
namespace {

class Flatten : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    const DeviceTensor& x = inputs[0];
    return view(x.data, x.type, x.n, node.output.c, 1, 1);  // same bytes
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    if (!input_grads[0]) return;
    ctx.copy(output_grad, input_grads[0], *ctx.backward, node.name + " backward");
  }
};

}  // namespace

RUNNER_CUDNN_LAYER(flatten) {
  return std::make_unique<Flatten>();
}

}  // namespace runner::cudnn
