// batch_norm2d on cuDNN: the spatial batch-norm calls. Training normalises with the batch's
// statistics and cuDNN folds them into the running ones (exponential average factor =
// momentum, unbiased variance, as PyTorch's cuDNN path); evaluation uses the running ones.
// The program runs a batch norm graph's training batches whole (LayerKind::batch_statistics),
// so the batch is the net's batch size.
#include <fmt/format.h>

#include <vector>

#include "backends/cudnn/build_context.h"
#include "backends/cudnn/cuda_check.h"
#include "runner/util/errors.h"

namespace runner::cudnn {
namespace {

constexpr cudnnBatchNormMode_t kMode = CUDNN_BATCHNORM_SPATIAL;

class BatchNorm : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    const LayerAttrs& a = node.attrs;
    if (a.eps < CUDNN_BN_MIN_EPSILON) {
      throw_user_error(node.where,
                       fmt::format("{}: eps {} is below cuDNN's least, {}", node.name, a.eps,
                                   CUDNN_BN_MIN_EPSILON),
                       "raise eps, or train on the CPU");
    }
    x_ = inputs[0];
    y_ = ctx.allocate_like(x_, node.name + " output");
    const int channels = x_.c;
    channel_desc_ = std::make_shared<TensorDescriptor>(1, channels, 1, 1);
    std::size_t next = 0;
    if (a.affine) {
      scale_ = ctx.params->get(node.params[next++]).value;
      shift_ = ctx.params->get(node.params[next++]).value;
      scale_grad_ = ctx.params->get(node.params[0]).gradient;
      shift_grad_ = ctx.params->get(node.params[1]).gradient;
    } else {  // cuDNN always scales and shifts: by constant ones and zeros
      scale_ = constant(ctx, channels, 1.f, node.name + " scale");
      shift_ = constant(ctx, channels, 0.f, node.name + " shift");
    }
    float* running_mean = ctx.params->get(node.params[next++]).value;
    float* running_var = ctx.params->get(node.params[next++]).value;
    eps_ = a.eps;

    const Libraries* libs = ctx.libs;
    const cudnnTensorDescriptor_t channel = channel_desc_->get();
    const DeviceTensor x = x_, y = y_;
    const float *scale = scale_, *shift = shift_;
    const double eps = eps_;
    if (!ctx.training) {
      ctx.forward->add(node.name, [=](cudaStream_t) {
        CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
            libs->cudnn, kMode, &kOne, &kZero, x.cudnn(), x.data, y.cudnn(), y.data, channel, scale,
            shift, running_mean, running_var, eps));
      });
      return y_;
    }
    saved_mean_ = ctx.memory->array<float>(channels, node.name + " batch mean");
    saved_inv_std_ = ctx.memory->array<float>(channels, node.name + " batch inverse std");
    float *saved_mean = saved_mean_, *saved_inv_std = saved_inv_std_;
    const double momentum = a.momentum;
    ctx.forward->add(node.name, [=](cudaStream_t) {
      CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
          libs->cudnn, kMode, &kOne, &kZero, x.cudnn(), x.data, y.cudnn(), y.data, channel, scale,
          shift, momentum, running_mean, running_var, eps, saved_mean, saved_inv_std));
    });
    return y_;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    const bool affine = node.attrs.affine;
    if (!affine && !input_grads[0]) return;
    const int channels = x_.c;
    // cuDNN writes the data and the parameter gradients in one call: scratch for those not needed.
    DeviceTensor dx = input_grads[0] ? input_grads[0]
                                     : ctx.allocate_like(x_, node.name + " unused input gradient");
    float* scale_grad =
        affine ? scale_grad_ : ctx.memory->array<float>(channels, node.name + " unused gradient");
    float* shift_grad =
        affine ? shift_grad_ : ctx.memory->array<float>(channels, node.name + " unused gradient");
    const Libraries* libs = ctx.libs;
    const cudnnTensorDescriptor_t channel = channel_desc_->get();
    const DeviceTensor x = x_, dy = output_grad;
    const float *scale = scale_, *saved_mean = saved_mean_, *saved_inv_std = saved_inv_std_;
    const double eps = eps_;
    ctx.backward->add(node.name + " backward", [=](cudaStream_t) {
      CUDNN_CHECK(cudnnBatchNormalizationBackward(libs->cudnn, kMode, &kOne, &kZero, &kOne, &kZero,
                                                  x.cudnn(), x.data, dy.cudnn(), dy.data,
                                                  dx.cudnn(), dx.data, channel, scale, scale_grad,
                                                  shift_grad, eps, saved_mean, saved_inv_std));
    });
  }

 private:
  static float* constant(BuildContext& ctx, int count, float value, const std::string& what) {
    float* device = ctx.memory->array<float>(count, what);
    std::vector<float> host(count, value);
    CUDA_CHECK(
        cudaMemcpy(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
    return device;
  }

  DeviceTensor x_, y_;
  std::shared_ptr<TensorDescriptor> channel_desc_;
  float *scale_ = nullptr, *shift_ = nullptr, *scale_grad_ = nullptr, *shift_grad_ = nullptr;
  float *saved_mean_ = nullptr, *saved_inv_std_ = nullptr;
  double eps_ = 1e-5;
};

}  // namespace

RUNNER_CUDNN_LAYER(batch_norm2d) {
  return std::make_unique<BatchNorm>();
}

}  // namespace runner::cudnn
