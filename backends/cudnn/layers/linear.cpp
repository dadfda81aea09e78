// linear on cuBLAS: y = x W^T + b with x (N, in), W (out, in) and y (N, out) row-major.
// cuBLAS is column-major, where a row-major (r, c) matrix reads as its (c, r) transpose, so:
//   y^T (out, N)  = W (out, in) x^T (in, N)      -> gemm(T, N, out, N, in; W, x)
//   dW^T (in, out) = x^T (in, N) dy (N, out)     -> gemm(N, T, in, out, N; x, dy)
//   dx^T (in, N)  = W^T (in, out) dy^T (out, N)  -> gemm(N, N, in, N, out; W, dy)
//   db (out)      = dy^T (out, N) ones (N)       -> gemv(N, out, N; dy, ones)
// Mixed precision: 16-bit x, W (the weights' mirror), y and dy, products accumulated in FP32
// (cublasGemmEx), dW written in FP32 straight into the master gradient; the FP32 bias added
// and its gradient summed by our kernels.
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/kernels.h"
#include "backends/cudnn/precision_kernels.h"

namespace runner::cudnn {
namespace {

cudaDataType_t cuda_type(DataType type) {
  switch (type) {
    case DataType::bf16:
      return CUDA_R_16BF;
    case DataType::f16:
      return CUDA_R_16F;
    case DataType::f32:
      break;
  }
  return CUDA_R_32F;
}

// C (m, n) = op(A) op(B) in cuBLAS's column-major terms; A and B hold `in_type` elements, C
// `out_type` ones. FP32 data: cublasSgemm (TF32 products where the handle's math mode allows
// them: training.precision tf32). 16-bit data: cublasGemmEx accumulating in FP32.
void gemm(cublasHandle_t handle, cublasOperation_t op_a, cublasOperation_t op_b, int m, int n,
          int k, const void* a, int lda, const void* b, int ldb, DataType in_type, void* c, int ldc,
          DataType out_type) {
  if (in_type == DataType::f32) {
    CUBLAS_CHECK(cublasSgemm(handle, op_a, op_b, m, n, k, &kOne, static_cast<const float*>(a), lda,
                             static_cast<const float*>(b), ldb, &kZero, static_cast<float*>(c),
                             ldc));
    return;
  }
  CUBLAS_CHECK(cublasGemmEx(handle, op_a, op_b, m, n, k, &kOne, a, cuda_type(in_type), lda, b,
                            cuda_type(in_type), ldb, &kZero, c, cuda_type(out_type), ldc,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

class Linear : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    x_ = inputs[0];  // (N, in), flat
    in_ = static_cast<int>(x_.elements() / x_.n);
    out_ = node.attrs.out_features;
    DeviceTensor y = ctx.allocate(node.output, node.name + " output");  // (N, out)
    weights_ = ctx.weights(node.params[0]);
    const float* bias = node.attrs.bias ? ctx.params->get(node.params[1]).value : nullptr;
    const Libraries* libs = ctx.libs;
    const int batch = x_.n, in = in_, out = out_;
    const void* x = x_.data;
    const void* w = weights_;
    const DataType type = x_.type;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      gemm(libs->cublas, CUBLAS_OP_T, CUBLAS_OP_N, out, batch, in, w, in, x, in, type, y.data, out,
           type);
      if (bias) kernels::add_bias_rows(y.data, type, bias, batch, out, stream);
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    const Libraries* libs = ctx.libs;
    const int batch = x_.n, in = in_, out = out_;
    const void* x = x_.data;
    const void* w = weights_;
    const void* dy = output_grad.data;
    const DataType type = x_.type;
    const float* ones = ctx.ones;
    float* dw = ctx.params->get(node.params[0]).gradient;
    float* db = node.attrs.bias ? ctx.params->get(node.params[1]).gradient : nullptr;
    ctx.backward->add(node.name + " backward weights", [=](cudaStream_t stream) {
      gemm(libs->cublas, CUBLAS_OP_N, CUBLAS_OP_T, in, out, batch, x, in, dy, out, type, dw, in,
           DataType::f32);
      if (!db) return;
      if (type == DataType::f32) {
        CUBLAS_CHECK(cublasSgemv(libs->cublas, CUBLAS_OP_N, out, batch, &kOne,
                                 static_cast<const float*>(dy), out, ones, 1, &kZero, db, 1));
      } else {
        kernels::sum_channels(dy, type, batch, out, 1, db, stream);
      }
    });
    if (!input_grads[0]) return;
    void* dx = input_grads[0].data;
    ctx.backward->add(node.name + " backward data", [=](cudaStream_t) {
      gemm(libs->cublas, CUBLAS_OP_N, CUBLAS_OP_N, in, batch, out, w, in, dy, out, type, dx, in,
           type);
    });
  }

 private:
  DeviceTensor x_;
  int in_ = 0, out_ = 0;
  const void* weights_ = nullptr;  // FP32, or the 16-bit mirror
};

}  // namespace

RUNNER_CUDNN_LAYER(linear) {
  return std::make_unique<Linear>();
}

}  // namespace runner::cudnn
