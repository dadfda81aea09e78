// add on the GPU: one sum kernel over the inputs; its gradient is copied to every input.
#include <fmt/format.h>

#include "backends/cudnn/build_context.h"
#include "backends/cudnn/kernels.h"
#include "runner/util/errors.h"

namespace runner::cudnn {
namespace {

class Add : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    DeviceTensor y = ctx.allocate_like(inputs[0], node.name + " output");
    if (inputs.size() > kernels::kMaxSumInputs) {
      throw LibraryError(fmt::format("{}: the cuDNN backend adds at most {} inputs", node.name,
                                     kernels::kMaxSumInputs));
    }
    kernels::SumInputs sources{};
    sources.count = static_cast<int>(inputs.size());
    for (int k = 0; k < sources.count; ++k) sources.data[k] = inputs[k].data;
    const std::size_t n = y.elements();
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      kernels::sum_arrays(y.data, sources, n, false, y.type, stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    for (const auto& grad : input_grads) {
      if (grad) ctx.copy(output_grad, grad, *ctx.backward, node.name + " backward");
    }
  }
};

}  // namespace

RUNNER_CUDNN_LAYER(add) {
  return std::make_unique<Add>();
}

}  // namespace runner::cudnn
