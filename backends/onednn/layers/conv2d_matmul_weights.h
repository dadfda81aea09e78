// A bf16 convolution's weight gradient as matrix products: the input's windows laid out as rows
// (im2col), multiplied by the output gradient on oneDNN's bf16 matmul. oneDNN 2.6's direct bf16
// weight-gradient kernel loses most of its rate where an image has few output positions (on a
// CIFAR ResNet-18's 4x4 last stage a third of the matmul's) and for strided windows (there it is
// about half its FP32 kernel's rate, which the runner used instead); the matmul runs those at
// 550-700 GFLOP/s (AMD EPYC, 2 threads, AVX512-BF16). Elsewhere the direct kernel is faster.
#pragma once

#include "backends/onednn/build_context.h"

namespace runner::onednn {

// Whether conv2d `node` (input dims `src`, output dims `dst`) computes its weight gradient here:
// a training net in bf16 with the own kernels on (backend.own_kernels), ungrouped, window rows
// (kernel taps x input channels) of 512 or more, and a strided window or at most 16 output
// positions per image.
bool matmul_weight_gradient_applies(const BuildContext& ctx, const Node& node,
                                    const dnnl::memory::dims& src, const dnnl::memory::dims& dst);

// Appends to ctx.backward the steps that write `node`'s weight (and bias) gradient from the input
// its forward pass read (`src`, any layout) and the output gradient; false, with nothing
// appended, where oneDNN has no native bf16 matmul for the products.
bool add_matmul_weight_gradient(BuildContext& ctx, const Node& node, const dnnl::memory& src,
                                const dnnl::memory& output_grad);

}  // namespace runner::onednn
