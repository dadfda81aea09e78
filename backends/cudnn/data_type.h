// The element type of a device tensor: FP32, or the 16-bit activations of mixed precision
// (training.precision bf16 or fp16). Parameters, gradients and optimizer state are always FP32.
// Free of CUDA types, for the layer builders and the kernels' declarations alike.
#pragma once

#include <cstddef>

#include "runner/config/precision.h"

namespace runner::cudnn {

enum class DataType { f32, bf16, f16 };

// The activations' type under `precision` (tf32 keeps FP32 tensors: only products round).
constexpr DataType activation_type(Precision precision) {
  return precision == Precision::bf16   ? DataType::bf16
         : precision == Precision::fp16 ? DataType::f16
                                        : DataType::f32;
}

constexpr std::size_t element_size(DataType type) {
  return type == DataType::f32 ? 4 : 2;
}

}  // namespace runner::cudnn
