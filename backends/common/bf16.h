// bfloat16 on the host: the upper half of an IEEE float, rounded to nearest even as oneDNN and
// PyTorch round (NaN stays NaN). For host steps over bf16 activations (dropout) and the tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace runner {

struct Bf16 {
  std::uint16_t bits = 0;
};

inline float to_float(Bf16 value) {
  const std::uint32_t bits = static_cast<std::uint32_t>(value.bits) << 16;
  float result;
  std::memcpy(&result, &bits, sizeof result);
  return result;
}
inline float to_float(float value) {
  return value;
}

inline Bf16 to_bf16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return {static_cast<std::uint16_t>((bits >> 16) | 0x40)};
  bits += 0x7fffu + ((bits >> 16) & 1u);  // round half to even on the dropped 16 bits
  return {static_cast<std::uint16_t>(bits >> 16)};
}

// Whether `value` is a bf16 number: its lower 16 bits are zero (an FP32 master weight after an
// update almost never is).
inline bool representable_in_bf16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return (bits & 0xffffu) == 0;
}

// `value` in the element type T (float or Bf16).
template <typename T>
T from_float(float value) {
  if constexpr (std::is_same_v<T, Bf16>) {
    return to_bf16(value);
  } else {
    return value;
  }
}

}  // namespace runner
