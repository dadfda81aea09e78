// What mul and scale share on oneDNN: their binary multiply, a factor of one value per channel
// in the layout of the activations it multiplies (oneDNN 2.6's binary broadcasts it with its JIT
// kernels only then: a plain factor against 16-channel blocks runs its reference kernel), and the
// sums over positions of its gradient (a host loop: oneDNN 2.6 reduces channels-last or blocked
// activations per channel only with its reference kernel).
#pragma once

#include <optional>
#include <string>

#include "backends/onednn/build_context.h"

namespace runner::onednn {

// A descriptor of `dims` (x's, with 1 where the factor is broadcast) in x's layout, when that is
// plain (abcd, ab), channels-last (acdb) or channel-blocked (aBcd16b, aBcd8b, aBcd4b).
std::optional<dnnl::memory::desc> factor_desc(const dnnl::memory::desc& x,
                                              const dnnl::memory::dims& dims);

// Appends dst = a * b to `steps`, b broadcast where its dims are 1 (a binary multiply).
void append_multiply(const BuildContext& ctx, const dnnl::memory& a, const dnnl::memory& b,
                     const dnnl::memory& dst, StepList& steps, const std::string& label);

// Appends to `steps`: sums = the sum over the positions of a * b per image and channel, into
// `sums` plain (N, C), or with `over_images` plain (C), summed over the images too; FP32 or
// bf16. a and b: activations of one shape, FP32 or bf16, in any layout (a plain copy is made of
// one element_offsets cannot read).
void append_channel_sums(const BuildContext& ctx, const dnnl::memory& a, const dnnl::memory& b,
                         const dnnl::memory& sums, bool over_images, StepList& steps,
                         const std::string& label);

}  // namespace runner::onednn
