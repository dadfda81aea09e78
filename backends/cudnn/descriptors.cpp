// cuDNN descriptor set-up and tear-down.
#include "backends/cudnn/descriptors.h"

#include "backends/cudnn/cuda_check.h"

namespace runner::cudnn {

cudnnDataType_t cudnn_type(DataType type) {
  switch (type) {
    case DataType::bf16:
      return CUDNN_DATA_BFLOAT16;
    case DataType::f16:
      return CUDNN_DATA_HALF;
    case DataType::f32:
      break;
  }
  return CUDNN_DATA_FLOAT;
}

TensorDescriptor::TensorDescriptor(int n, int c, int h, int w, DataType type) {
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc_));
  try {
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(desc_, CUDNN_TENSOR_NCHW, cudnn_type(type), n, c, h, w));
  } catch (...) {
    cudnnDestroyTensorDescriptor(desc_);
    throw;
  }
}
TensorDescriptor::~TensorDescriptor() {
  cudnnDestroyTensorDescriptor(desc_);
}

FilterDescriptor::FilterDescriptor(int k, int c, int h, int w, DataType type) {
  CUDNN_CHECK(cudnnCreateFilterDescriptor(&desc_));
  try {
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(desc_, cudnn_type(type), CUDNN_TENSOR_NCHW, k, c, h, w));
  } catch (...) {
    cudnnDestroyFilterDescriptor(desc_);
    throw;
  }
}
FilterDescriptor::~FilterDescriptor() {
  cudnnDestroyFilterDescriptor(desc_);
}

ConvolutionDescriptor::ConvolutionDescriptor(int pad_h, int pad_w, int stride_h, int stride_w,
                                             int dilation_h, int dilation_w, int groups,
                                             Precision precision) {
  CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&desc_));
  try {
    // The compute type is FP32 in every precision: 16-bit data accumulates in FP32 (cuDNN's
    // PSEUDO_HALF and BFLOAT16 configurations), as PyTorch's autocast does.
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(desc_, pad_h, pad_w, stride_h, stride_w, dilation_h,
                                                dilation_w, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT));
    CUDNN_CHECK(cudnnSetConvolutionGroupCount(desc_, groups));
    CUDNN_CHECK(cudnnSetConvolutionMathType(
        desc_, precision == Precision::fp32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH));
  } catch (...) {
    cudnnDestroyConvolutionDescriptor(desc_);
    throw;
  }
}
ConvolutionDescriptor::~ConvolutionDescriptor() {
  cudnnDestroyConvolutionDescriptor(desc_);
}

PoolingDescriptor::PoolingDescriptor(cudnnPoolingMode_t mode, int kernel_h, int kernel_w, int pad_h,
                                     int pad_w, int stride_h, int stride_w) {
  CUDNN_CHECK(cudnnCreatePoolingDescriptor(&desc_));
  try {
    CUDNN_CHECK(cudnnSetPooling2dDescriptor(desc_, mode, CUDNN_PROPAGATE_NAN, kernel_h, kernel_w,
                                            pad_h, pad_w, stride_h, stride_w));
  } catch (...) {
    cudnnDestroyPoolingDescriptor(desc_);
    throw;
  }
}
PoolingDescriptor::~PoolingDescriptor() {
  cudnnDestroyPoolingDescriptor(desc_);
}

ActivationDescriptor::ActivationDescriptor(cudnnActivationMode_t mode) {
  CUDNN_CHECK(cudnnCreateActivationDescriptor(&desc_));
  try {
    CUDNN_CHECK(cudnnSetActivationDescriptor(desc_, mode, CUDNN_PROPAGATE_NAN, 0.0));
  } catch (...) {
    cudnnDestroyActivationDescriptor(desc_);
    throw;
  }
}
ActivationDescriptor::~ActivationDescriptor() {
  cudnnDestroyActivationDescriptor(desc_);
}

}  // namespace runner::cudnn
