// nn.Linear over the rows of a matrix on cuBLAS (dense_rows.h).
#include "backends/cudnn/dense_rows.h"

#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/gemm.h"
#include "backends/cudnn/kernels.h"

namespace runner::cudnn {

void DenseRows::forward(BuildContext& ctx, const DeviceTensor& x, const DeviceTensor& y) {
  x_ = x;
  weights_ = ctx.weights(weight_);
  const float* bias = bias_ ? ctx.params->get(*bias_).value : nullptr;
  const Libraries* libs = ctx.libs;
  const int rows = x.n, in = static_cast<int>(x.elements() / x.n);
  const int out = static_cast<int>(weight_.dims[0]);
  const void* w = weights_;
  ctx.forward->add(label_, [=](cudaStream_t stream) {
    gemm(libs->cublas, CUBLAS_OP_T, CUBLAS_OP_N, out, rows, in, w, in, x.data, in, x.type, y.data,
         out, x.type);
    if (bias) kernels::add_bias_rows(y.data, x.type, bias, rows, out, stream);
  });
}

void DenseRows::backward(BuildContext& ctx, const DeviceTensor& dy, const DeviceTensor& dx) {
  const Libraries* libs = ctx.libs;
  const int rows = x_.n, in = static_cast<int>(x_.elements() / x_.n);
  const int out = static_cast<int>(weight_.dims[0]);
  const void* x = x_.data;
  const void* w = weights_;
  const DataType type = x_.type;
  const float* ones = ctx.ones;
  float* dw = ctx.params->get(weight_).gradient;
  float* db = bias_ ? ctx.params->get(*bias_).gradient : nullptr;
  ctx.backward->add(label_ + " backward weights", [=](cudaStream_t stream) {
    gemm(libs->cublas, CUBLAS_OP_N, CUBLAS_OP_T, in, out, rows, x, in, dy.data, out, type, dw, in,
         DataType::f32);
    if (!db) return;
    if (type == DataType::f32) {
      CUBLAS_CHECK(cublasSgemv(libs->cublas, CUBLAS_OP_N, out, rows, &kOne,
                               static_cast<const float*>(dy.data), out, ones, 1, &kZero, db, 1));
    } else {
      kernels::sum_channels(dy.data, type, rows, out, 1, db, stream);
    }
  });
  if (!dx) return;
  ctx.backward->add(label_ + " backward data", [=](cudaStream_t) {
    gemm(libs->cublas, CUBLAS_OP_N, CUBLAS_OP_N, in, rows, out, w, in, dy.data, out, type, dx.data,
         in, type);
  });
}

}  // namespace runner::cudnn
