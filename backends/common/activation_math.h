// The element-wise activations' arithmetic for the GPU kernels (backends/cudnn/layer_kernels.cu),
// the CPU loops of the kinds oneDNN 2.6 lacks or differs on (backends/onednn/layers/
// own_activation.cpp), and the host test that checks it against PyTorch
// (tests/backends/activation_golden_test.cpp): PyTorch's LeakyReLU, GELU (erf, and tanh with
// approximate='tanh'), Sigmoid, Tanh, SiLU, ReLU6, Hardswish and Hardsigmoid, and their
// derivatives as PyTorch's autograd has them, at the kinks too.
#pragma once

#include <cmath>

#include "runner/util/host_device.h"

namespace runner::activation_math {

enum class Activation {
  leaky_relu,
  gelu,
  gelu_tanh,
  sigmoid,
  tanh,
  silu,
  relu6,
  hardswish,
  hardsigmoid
};

inline constexpr float kSqrtHalf = 0.70710678118654752f;     // 1 / sqrt(2)
inline constexpr float kInvSqrt2Pi = 0.39894228040143268f;   // 1 / sqrt(2 pi)
inline constexpr float kSqrt2OverPi = 0.79788456080286536f;  // sqrt(2 / pi)
inline constexpr float kGeluCubic = 0.044715f;               // GELU's tanh form

RUNNER_HOST_DEVICE inline float sigmoid(float x) {
  return 1.f / (1.f + expf(-x));
}

RUNNER_HOST_DEVICE inline float relu6(float x) {
  return fminf(fmaxf(x, 0.f), 6.f);
}

RUNNER_HOST_DEVICE inline float forward(Activation kind, float x, float negative_slope) {
  switch (kind) {
    case Activation::leaky_relu:
      return x > 0.f ? x : x * negative_slope;
    case Activation::gelu:
      return 0.5f * x * (1.f + erff(x * kSqrtHalf));
    case Activation::gelu_tanh:
      return 0.5f * x * (1.f + tanhf(kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
    case Activation::sigmoid:
      return sigmoid(x);
    case Activation::tanh:
      return tanhf(x);
    case Activation::silu:
      return x * sigmoid(x);
    case Activation::relu6:
      return relu6(x);
    case Activation::hardswish:
      return x * relu6(x + 3.f) / 6.f;
    case Activation::hardsigmoid:
      return relu6(x + 3.f) / 6.f;
  }
  return x;
}

// d(output)/d(input) at input x with output y. At the kinks PyTorch's backward kernels decide:
// relu6 (hardtanh's backward) passes nothing at 0 and at 6; hardsigmoid passes 1/6 strictly
// inside (-3, 3) only; hardswish takes the middle piece x/3 + 1/2 on the closed [-3, 3]: -1/2
// at -3 and 3/2 at 3 (PyTorch's scalar CPU loop and its CUDA kernel; its vectorised CPU loop
// gives 1 at exactly 3).
RUNNER_HOST_DEVICE inline float derivative(Activation kind, float x, float y,
                                           float negative_slope) {
  switch (kind) {
    case Activation::leaky_relu:
      return x > 0.f ? 1.f : negative_slope;
    case Activation::gelu:  // Phi(x) + x phi(x)
      return 0.5f * (1.f + erff(x * kSqrtHalf)) + x * kInvSqrt2Pi * expf(-0.5f * x * x);
    case Activation::gelu_tanh: {  // 0.5 (1 + t) + 0.5 x (1 - t^2) u'(x), u the tanh's argument
      const float t = tanhf(kSqrt2OverPi * (x + kGeluCubic * x * x * x));
      return 0.5f * (1.f + t) +
             0.5f * x * (1.f - t * t) * kSqrt2OverPi * (1.f + 3.f * kGeluCubic * x * x);
    }
    case Activation::sigmoid:
      return y * (1.f - y);
    case Activation::tanh:
      return 1.f - y * y;
    case Activation::silu: {  // s (1 + x (1 - s))
      const float s = sigmoid(x);
      return s * (1.f + x * (1.f - s));
    }
    case Activation::relu6:
      return x > 0.f && x < 6.f ? 1.f : 0.f;
    case Activation::hardswish:
      return x < -3.f ? 0.f : (x <= 3.f ? x / 3.f + 0.5f : 1.f);
    case Activation::hardsigmoid:
      return x > -3.f && x < 3.f ? 1.f / 6.f : 0.f;
  }
  return 1.f;
}

}  // namespace runner::activation_math
