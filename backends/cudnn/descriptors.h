// Owning wrappers of cuDNN descriptors (created once at compile time, destroyed with the
// program) and the device tensor that layers pass to each other.
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <memory>

#include "backends/cudnn/data_type.h"
#include "runner/config/precision.h"

namespace runner::cudnn {

// cuDNN's name of `type`.
cudnnDataType_t cudnn_type(DataType type);

// A dense NCHW tensor descriptor.
class TensorDescriptor {
 public:
  TensorDescriptor(int n, int c, int h, int w, DataType type = DataType::f32);
  ~TensorDescriptor();
  TensorDescriptor(const TensorDescriptor&) = delete;
  TensorDescriptor& operator=(const TensorDescriptor&) = delete;
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

// A (K, C, kH, kW) filter, PyTorch's conv weight layout.
class FilterDescriptor {
 public:
  FilterDescriptor(int k, int c, int h, int w, DataType type = DataType::f32);
  ~FilterDescriptor();
  FilterDescriptor(const FilterDescriptor&) = delete;
  FilterDescriptor& operator=(const FilterDescriptor&) = delete;
  cudnnFilterDescriptor_t get() const { return desc_; }

 private:
  cudnnFilterDescriptor_t desc_ = nullptr;
};

// A 2-D cross-correlation (PyTorch's conv2d, dilated and grouped) accumulating in FP32. fp32:
// FMA math only, no TF32 tensor cores, so results stay within float rounding of the CPU backend.
// tf32, bf16, fp16: tensor-op math allowed (TF32 products of FP32 data, or 16-bit data).
class ConvolutionDescriptor {
 public:
  ConvolutionDescriptor(int pad_h, int pad_w, int stride_h, int stride_w, int dilation_h,
                        int dilation_w, int groups, Precision precision);
  ~ConvolutionDescriptor();
  ConvolutionDescriptor(const ConvolutionDescriptor&) = delete;
  ConvolutionDescriptor& operator=(const ConvolutionDescriptor&) = delete;
  cudnnConvolutionDescriptor_t get() const { return desc_; }

 private:
  cudnnConvolutionDescriptor_t desc_ = nullptr;
};

class PoolingDescriptor {
 public:
  PoolingDescriptor(cudnnPoolingMode_t mode, int kernel_h, int kernel_w, int pad_h, int pad_w,
                    int stride_h, int stride_w);
  ~PoolingDescriptor();
  PoolingDescriptor(const PoolingDescriptor&) = delete;
  PoolingDescriptor& operator=(const PoolingDescriptor&) = delete;
  cudnnPoolingDescriptor_t get() const { return desc_; }

 private:
  cudnnPoolingDescriptor_t desc_ = nullptr;
};

class ActivationDescriptor {
 public:
  explicit ActivationDescriptor(cudnnActivationMode_t mode);
  ~ActivationDescriptor();
  ActivationDescriptor(const ActivationDescriptor&) = delete;
  ActivationDescriptor& operator=(const ActivationDescriptor&) = delete;
  cudnnActivationDescriptor_t get() const { return desc_; }

 private:
  cudnnActivationDescriptor_t desc_ = nullptr;
};

// A tensor on the device, (N, C, H, W) or for flat shapes (N, C, 1, 1), dense NCHW (which is
// also PyTorch's flatten order and cuBLAS's row-major (N, C*H*W)), of `type` elements.
struct DeviceTensor {
  void* data = nullptr;
  DataType type = DataType::f32;
  int n = 0, c = 0, h = 1, w = 1;
  std::shared_ptr<const TensorDescriptor> desc;

  std::size_t elements() const { return static_cast<std::size_t>(n) * c * h * w; }
  std::size_t bytes() const { return elements() * element_size(type); }
  cudnnTensorDescriptor_t cudnn() const { return desc->get(); }
  explicit operator bool() const { return data != nullptr; }
};

// Scaling factors for cuDNN calls (host memory, read when the call is made).
inline const float kOne = 1.f;
inline const float kZero = 0.f;

}  // namespace runner::cudnn
