// max_pool2d, avg_pool2d and global_avg_pool2d on cuDNN (the backward pass reads the forward's
// input and output). A global pool's window is the whole input plane; its flat output is the
// same (N, C, 1, 1) bytes.
#include <fmt/format.h>

#include "backends/cudnn/build_context.h"
#include "backends/cudnn/cuda_check.h"
#include "runner/util/errors.h"

namespace runner::cudnn {
namespace {

class Pooling : public CudnnLayer {
 public:
  enum class Kind { max, average, global_average };
  explicit Pooling(Kind kind) : kind_(kind) {}

  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    LayerAttrs a = node.attrs;
    x_ = inputs[0];                                         // (N, C, H, W)
    y_ = ctx.allocate(node.output, node.name + " output");  // (N, C, Ho, Wo)
    if (kind_ == Kind::global_average) {
      a.kernel_h = a.stride_h = x_.h;
      a.kernel_w = a.stride_w = x_.w;
      a.pad_h = a.pad_w = 0;
    }
    // Max pooling's deterministic mode avoids atomics where windows overlap.
    cudnnPoolingMode_t mode =
        kind_ == Kind::max
            ? (ctx.deterministic ? CUDNN_POOLING_MAX_DETERMINISTIC : CUDNN_POOLING_MAX)
            // PyTorch's AvgPool2d counts padded zeros by default (count_include_pad=True).
            : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    pool_ = std::make_unique<PoolingDescriptor>(mode, a.kernel_h, a.kernel_w, a.pad_h, a.pad_w,
                                                a.stride_h, a.stride_w);
    int n, c, h, w;
    CUDNN_CHECK(cudnnGetPooling2dForwardOutputDim(pool_->get(), x_.cudnn(), &n, &c, &h, &w));
    if (n != y_.n || c != y_.c || h != y_.h || w != y_.w) {
      throw LibraryError(fmt::format("{}: cuDNN's output {}x{}x{} differs from the graph's {}",
                                     node.name, c, h, w, node.output.str()));
    }
    const Libraries* libs = ctx.libs;
    const cudnnPoolingDescriptor_t pool = pool_->get();
    const DeviceTensor x = x_, y = y_;
    ctx.forward->add(node.name, [=](cudaStream_t) {
      CUDNN_CHECK(cudnnPoolingForward(libs->cudnn, pool, &kOne, x.cudnn(), x.data, &kZero,
                                      y.cudnn(), y.data));
    });
    return y_;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    if (!input_grads[0]) return;
    const Libraries* libs = ctx.libs;
    const cudnnPoolingDescriptor_t pool = pool_->get();
    const DeviceTensor x = x_, y = y_, dy = output_grad, dx = input_grads[0];
    ctx.backward->add(node.name + " backward", [=](cudaStream_t) {
      CUDNN_CHECK(cudnnPoolingBackward(libs->cudnn, pool, &kOne, y.cudnn(), y.data, dy.cudnn(),
                                       dy.data, x.cudnn(), x.data, &kZero, dx.cudnn(), dx.data));
    });
  }

 private:
  Kind kind_;
  DeviceTensor x_, y_;
  std::unique_ptr<PoolingDescriptor> pool_;
};

}  // namespace

RUNNER_CUDNN_LAYER(max_pool2d) {
  return std::make_unique<Pooling>(Pooling::Kind::max);
}
RUNNER_CUDNN_LAYER(avg_pool2d) {
  return std::make_unique<Pooling>(Pooling::Kind::average);
}
RUNNER_CUDNN_LAYER(global_avg_pool2d) {
  return std::make_unique<Pooling>(Pooling::Kind::global_average);
}

}  // namespace runner::cudnn
