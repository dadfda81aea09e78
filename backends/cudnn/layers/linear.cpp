// linear on cuBLAS: y = x W^T + b with x (N, in), W (out, in) and y (N, out) row-major.
// cuBLAS is column-major, where a row-major (r, c) matrix reads as its (c, r) transpose, so:
//   y^T (out, N)  = W (out, in) x^T (in, N)      -> gemm(T, N, out, N, in; W, x)
//   dW^T (in, out) = x^T (in, N) dy (N, out)     -> gemm(N, T, in, out, N; x, dy)
//   dx^T (in, N)  = W^T (in, out) dy^T (out, N)  -> gemm(N, N, in, N, out; W, dy)
//   db (out)      = dy^T (out, N) ones (N)       -> gemv(N, out, N; dy, ones)
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/kernels.h"

namespace runner::cudnn {
namespace {

class Linear : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    x_ = inputs[0];  // (N, in), flat
    in_ = static_cast<int>(x_.elements() / x_.n);
    out_ = node.attrs.out_features;
    DeviceTensor y = ctx.allocate(node.output, node.name + " output");  // (N, out)
    weights_ = ctx.params->get(node.params[0]).value;
    const float* bias = node.attrs.bias ? ctx.params->get(node.params[1]).value : nullptr;
    const Libraries* libs = ctx.libs;
    const int batch = x_.n, in = in_, out = out_;
    const float* x = x_.data;
    const float* w = weights_;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      CUBLAS_CHECK(cublasSgemm(libs->cublas, CUBLAS_OP_T, CUBLAS_OP_N, out, batch, in, &kOne, w, in,
                               x, in, &kZero, y.data, out));
      if (bias) kernels::add_bias_rows(y.data, bias, batch, out, stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    const Libraries* libs = ctx.libs;
    const int batch = x_.n, in = in_, out = out_;
    const float* x = x_.data;
    const float* w = weights_;
    const float* dy = output_grad.data;
    const float* ones = ctx.ones;
    float* dw = ctx.params->get(node.params[0]).gradient;
    float* db = node.attrs.bias ? ctx.params->get(node.params[1]).gradient : nullptr;
    ctx.backward->add(node.name + " backward weights", [=](cudaStream_t) {
      CUBLAS_CHECK(cublasSgemm(libs->cublas, CUBLAS_OP_N, CUBLAS_OP_T, in, out, batch, &kOne, x, in,
                               dy, out, &kZero, dw, in));
      if (db) {
        CUBLAS_CHECK(cublasSgemv(libs->cublas, CUBLAS_OP_N, out, batch, &kOne, dy, out, ones, 1,
                                 &kZero, db, 1));
      }
    });
    if (!input_grads[0]) return;
    float* dx = input_grads[0].data;
    ctx.backward->add(node.name + " backward data", [=](cudaStream_t) {
      CUBLAS_CHECK(cublasSgemm(libs->cublas, CUBLAS_OP_N, CUBLAS_OP_N, in, batch, out, &kOne, w, in,
                               dy, out, &kZero, dx, in));
    });
  }

 private:
  DeviceTensor x_;
  int in_ = 0, out_ = 0;
  float* weights_ = nullptr;
};

}  // namespace

RUNNER_CUDNN_LAYER(linear) {
  return std::make_unique<Linear>();
}

}  // namespace runner::cudnn
