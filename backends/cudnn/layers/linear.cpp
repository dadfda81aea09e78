// linear on cuBLAS: y = x W^T + b over the rows of x (dense_rows.h): (N, in) flat features, or
// the (N*T, in) tokens of a token sequence, which this backend holds as rows.
#include <optional>

#include "backends/cudnn/build_context.h"
#include "backends/cudnn/dense_rows.h"

namespace runner::cudnn {
namespace {

class Linear : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    dense_.emplace(node.params[0], node.attrs.bias ? &node.params[1] : nullptr, node.name);
    const DeviceTensor y = ctx.allocate(node.output, node.name + " output");  // (rows, out)
    dense_->forward(ctx, inputs[0], y);
    return y;
  }

  void backward(BuildContext& ctx, const Node&, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    dense_->backward(ctx, output_grad, input_grads[0]);
  }

 private:
  std::optional<DenseRows> dense_;
};

}  // namespace

RUNNER_CUDNN_LAYER(linear) {
  return std::make_unique<Linear>();
}

}  // namespace runner::cudnn
