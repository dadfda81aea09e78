// y = x W^T + b over the rows of a matrix on cuBLAS, nn.Linear: what linear's layer and
// self_attention's two projections are made of. x (rows, in), W (out, in) and y (rows, out)
// row-major; cuBLAS is column-major, where a row-major (r, c) matrix reads as its (c, r)
// transpose, so:
//   y^T (out, rows)  = W (out, in) x^T (in, rows)       -> gemm(T, N, out, rows, in; W, x)
//   dW^T (in, out)   = x^T (in, rows) dy (rows, out)    -> gemm(N, T, in, out, rows; x, dy)
//   dx^T (in, rows)  = W^T (in, out) dy^T (out, rows)   -> gemm(N, N, in, rows, out; W, dy)
//   db (out)         = dy^T (out, rows) ones (rows)     -> gemv(N, out, rows; dy, ones)
// Mixed precision: 16-bit x, W (the weights' mirror), y and dy, products accumulated in FP32
// (cublasGemmEx), dW written in FP32 straight into the master gradient; the FP32 bias added
// and its gradient summed by our kernels.
#pragma once

#include <optional>
#include <string>

#include "backends/cudnn/build_context.h"

namespace runner::cudnn {

class DenseRows {
 public:
  // `bias` null: none. `label` names the launches ("fc", "fc backward weights", ...).
  DenseRows(const ParamSpec& weight, const ParamSpec* bias, std::string label)
      : weight_(weight), label_(std::move(label)) {
    if (bias) bias_ = *bias;
  }

  // Appends y = x W^T + b, x and y tensors of x.n rows.
  void forward(BuildContext& ctx, const DeviceTensor& x, const DeviceTensor& y);
  // Appends the weight and bias gradients from dy and, when `dx` is given, dx.
  void backward(BuildContext& ctx, const DeviceTensor& dy, const DeviceTensor& dx);

 private:
  ParamSpec weight_;
  std::optional<ParamSpec> bias_;
  std::string label_;
  DeviceTensor x_;
  const void* weights_ = nullptr;  // FP32, or the 16-bit mirror
};

}  // namespace runner::cudnn
