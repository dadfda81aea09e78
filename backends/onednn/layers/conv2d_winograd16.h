// conv2d's own implementation for 16 channels in and out, 3x3, stride 1, padding 1, on AVX-512:
// the Winograd kernels of backends/onednn/winograd16.h, in place of oneDNN's primitives.
#pragma once

#include <memory>

#include "backends/onednn/build_context.h"

namespace runner::onednn {

// Whether `node`, reading an input of `input_dims`, runs on the Winograd kernels here.
bool winograd16_applies(const Node& node, const dnnl::memory::dims& input_dims);

std::unique_ptr<OnednnLayer> make_winograd16_conv();

}  // namespace runner::onednn
