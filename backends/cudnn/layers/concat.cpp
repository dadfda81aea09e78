// concat on the GPU: in dense NCHW each input is, per image, one contiguous run of the output's
// image, so a strided 2-D copy per input joins them (and splits the gradient back).
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/cuda_check.h"

namespace runner::cudnn {
namespace {

// One input's place in the output: `part` bytes per image at byte `offset` in each output image
// of `whole` bytes.
struct Slice {
  std::size_t offset = 0, part = 0, whole = 0;
  int images = 0;
};

// Copies between an input's dense (images, part) rows and its slice of the output's rows.
void copy_slice(const Slice& s, const void* from, void* to, bool into_output, StepList& steps,
                const std::string& label) {
  steps.add(label, [=](cudaStream_t stream) {
    if (into_output) {
      CUDA_CHECK(cudaMemcpy2DAsync(static_cast<char*>(to) + s.offset, s.whole, from, s.part, s.part,
                                   s.images, cudaMemcpyDeviceToDevice, stream));
    } else {
      CUDA_CHECK(cudaMemcpy2DAsync(to, s.part, static_cast<const char*>(from) + s.offset, s.whole,
                                   s.part, s.images, cudaMemcpyDeviceToDevice, stream));
    }
  });
}

class Concat : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    DeviceTensor y = ctx.allocate(node.output, node.name + " output");  // (N, sum of C, H, W)
    const std::size_t whole = y.bytes() / y.n;
    std::size_t offset = 0;
    for (const DeviceTensor& x : inputs) {
      const std::size_t part = x.bytes() / x.n;
      slices_.push_back({offset, part, whole, y.n});
      copy_slice(slices_.back(), x.data, y.data, true, *ctx.forward, node.name);
      offset += part;
    }
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    for (std::size_t k = 0; k < input_grads.size(); ++k) {
      if (input_grads[k]) {
        copy_slice(slices_[k], output_grad.data, input_grads[k].data, false, *ctx.backward,
                   node.name + " backward");
      }
    }
  }

 private:
  std::vector<Slice> slices_;  // per input
};

}  // namespace

RUNNER_CUDNN_LAYER(concat) {
  return std::make_unique<Concat>();
}

}  // namespace runner::cudnn
