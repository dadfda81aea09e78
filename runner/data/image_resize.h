// Resizing planar 8-bit images exactly as torchvision's Resize([h, w]) resizes a PIL image:
// Pillow's BILINEAR resampling, antialiased when shrinking, in Pillow's fixed-point arithmetic.
#pragma once

#include <cstdint>
#include <span>

#include "runner/data/image_decode.h"

namespace runner {

// (C, H, W) -> (C, height, width). Bit-exact with Pillow 9.4's Image.resize(BILINEAR) (the test
// compares every pixel of tests/data/image_golden.json, made by scripts/resize_golden.py): the
// same separable triangle filter, its support scaled by the shrink factor, the same weights in
// 22-bit fixed point, horizontal pass first, rounded and clipped to 8 bits after each pass.
// The same size is a copy.
Image resize_image(const Image& image, int height, int width);

// The same into `out`, which holds (C, height, width) bytes: a batch's slot, no allocation for
// the result.
void resize_image_into(const Image& image, int height, int width, std::span<std::uint8_t> out);

}  // namespace runner
