// The element-wise activations' arithmetic for the GPU kernels (backends/cudnn/layer_kernels.cu)
// and the host code that checks them: PyTorch's LeakyReLU, GELU (exact, erf), Sigmoid and Tanh,
// and their derivatives. The CPU backend uses oneDNN's eltwise primitives for the same functions.
#pragma once

#include <cmath>

#include "runner/util/host_device.h"

namespace runner::activation_math {

enum class Activation { leaky_relu, gelu, sigmoid, tanh };

RUNNER_HOST_DEVICE inline float forward(Activation kind, float x, float negative_slope) {
  switch (kind) {
    case Activation::leaky_relu:
      return x > 0.f ? x : x * negative_slope;
    case Activation::gelu:
      return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
    case Activation::sigmoid:
      return 1.f / (1.f + expf(-x));
    case Activation::tanh:
      return tanhf(x);
  }
  return x;
}

// d(output)/d(input) at input x with output y.
RUNNER_HOST_DEVICE inline float derivative(Activation kind, float x, float y,
                                           float negative_slope) {
  switch (kind) {
    case Activation::leaky_relu:
      return x > 0.f ? 1.f : negative_slope;
    case Activation::gelu:  // Phi(x) + x phi(x)
      return 0.5f * (1.f + erff(x * 0.70710678118654752f)) +
             x * 0.39894228040143268f * expf(-0.5f * x * x);
    case Activation::sigmoid:
      return y * (1.f - y);
    case Activation::tanh:
      return 1.f - y * y;
  }
  return 1.f;
}

}  // namespace runner::activation_math
