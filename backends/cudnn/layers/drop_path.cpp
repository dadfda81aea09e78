// drop_path on the GPU: in training our kernel draws each image's factor of this step (0 or
// 1 / (1 - p), backends/common/dropout_math.h, as the CPU backend draws it) and the broadcast
// multiply applies it to the image's values (NCHW, tokens or flat: each image contiguous); the
// factors are kept for the backward pass. In evaluation the input passes through.
#include "backends/common/dropout_math.h"
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/layer_kernels.h"
#include "backends/cudnn/token_kernels.h"

namespace runner::cudnn {
namespace {

class DropPath : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    if (!ctx.training) return inputs[0];
    const DeviceTensor x = inputs[0];
    const DeviceTensor y = ctx.allocate_like(x, node.name + " output");
    factors_ = ctx.memory->array<float>(ctx.batch, node.name + " factors");
    const std::uint64_t seed = ctx.seed, layer = dropout_math::layer_key(node.name.c_str());
    const long long* step = ctx.step;
    const float p = static_cast<float>(node.attrs.p);
    const int images = ctx.batch;
    float* factors = factors_;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::drop_path_factors(seed, step, layer, p, factors, images, stream);
      kernels::multiply_broadcast(x.data, x.type, factors, DataType::f32, y.data, x.elements(),
                                  x.elements() / images, images, stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    if (!input_grads[0]) return;
    const DeviceTensor dy = output_grad, dx = input_grads[0];
    const float* factors = factors_;
    const int images = ctx.batch;
    ctx.backward->add(node.name + " backward", [=](cudaStream_t stream) {
      kernels::multiply_broadcast(dy.data, dy.type, factors, DataType::f32, dx.data, dy.elements(),
                                  dy.elements() / images, images, stream);
    });
  }

 private:
  float* factors_ = nullptr;  // (N), FP32
};

}  // namespace

RUNNER_CUDNN_LAYER(drop_path) {
  return std::make_unique<DropPath>();
}

}  // namespace runner::cudnn
