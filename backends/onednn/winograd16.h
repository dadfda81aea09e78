// Winograd F(2x2, 3x3) convolutions of 16 channels in and 16 out, channels-last, stride 1,
// padding 1: forward, data gradient and weight gradient. oneDNN 2.6 has no fast kernel for this
// shape (its Winograd is tuned for wide layers, its direct kernels already run at the FMA peak),
// yet it is the widest part of a CIFAR ResNet; Winograd needs 4 multiplications per output where
// the direct method needs 9. AVX-512 only: callers check winograd16_available() first.
#pragma once

#include <cstdint>

namespace runner::onednn::winograd16 {

constexpr int kChannels = 16;
// Floats of transformed weights: 16 tile positions x 16 inputs x 16 outputs.
constexpr int kTransformedFloats = 16 * kChannels * kChannels;

// Whether this CPU runs the kernels (AVX-512F); the config's backend.own_kernels decides whether
// they are used.
bool available();

// `weight` (16 out, 16 in, 3, 3), PyTorch's layout, into `transformed` (kTransformedFloats) for
// convolve(): for the forward pass, or, with `data_gradient`, for the data gradient (the
// convolution of the output gradient with the weights turned 180 degrees, in and out swapped).
void transform_weights(const float* weight, bool data_gradient, float* transformed);

// dst = conv(src, weights) [+ bias] [then ReLU], all images (n, h, w, 16) channels-last; `bias`
// may be null. With transform_weights(data_gradient) weights, src is the output gradient and dst
// the input gradient. Threads: OpenMP's current number.
void convolve(const float* src, const float* transformed, const float* bias, bool relu, float* dst,
              std::int64_t n, int h, int w);

// The weight gradient (16 out, 16 in, 3, 3) of dst = conv(src, weight) from the output gradient
// `dst_grad`, both (n, h, w, 16); and the bias gradient (16) when `bias_grad` is not null. Both
// are overwritten. The sum runs in the same order for the same number of threads.
void weight_gradient(const float* src, const float* dst_grad, float* weight_grad, float* bias_grad,
                     std::int64_t n, int h, int w);

}  // namespace runner::onednn::winograd16
