// Device-side conversions between FP32 and a tensor's element type, and the dispatch from a
// run-time DataType to a kernel template (float, __nv_bfloat16 or __half). Kernels compute in
// float and round once when they store: for float every conversion is the identity, so the FP32
// kernels compute exactly what they did before they were templates.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "backends/cudnn/data_type.h"

namespace runner::cudnn::kernels {

__device__ __forceinline__ float to_float(float v) {
  return v;
}
__device__ __forceinline__ float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
__device__ __forceinline__ float to_float(__half v) {
  return __half2float(v);
}

// Round to nearest even, as PyTorch's casts do (overflow gives inf in half precision).
template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}

template <typename T>
struct Element {
  using type = T;
};

// Calls f(Element<T>{}) with the C++ type of `type`.
template <typename F>
void with_element(DataType type, F&& f) {
  switch (type) {
    case DataType::bf16:
      f(Element<__nv_bfloat16>{});
      return;
    case DataType::f16:
      f(Element<__half>{});
      return;
    case DataType::f32:
      break;
  }
  f(Element<float>{});
}

}  // namespace runner::cudnn::kernels
