// The arithmetic a run trains and evaluates in (`training.precision`), and how a device runs it.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace runner {

// fp32: everything in FP32. bf16 / fp16: mixed precision (convolutions, linear layers, pooling
// and activations in 16 bits with FP32 accumulation; master weights, optimizer, batch-norm
// statistics and the loss in FP32). tf32: FP32 tensors, GPU matrix units rounding the inputs of
// their products to TF32.
enum class Precision { fp32, bf16, tf32, fp16 };

inline constexpr std::array<Precision, 4> kPrecisions = {Precision::fp32, Precision::bf16,
                                                         Precision::tf32, Precision::fp16};

constexpr std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::bf16:
      return "bf16";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
      return "fp16";
    case Precision::fp32:
      break;
  }
  return "fp32";
}

inline std::optional<Precision> parse_precision(std::string_view name) {
  for (Precision p : kPrecisions) {
    if (precision_name(p) == name) return p;
  }
  return std::nullopt;
}

// How a device runs a precision: in hardware, or emulated in wider arithmetic (correct, slow).
enum class PrecisionSupport { native, emulated };

}  // namespace runner
