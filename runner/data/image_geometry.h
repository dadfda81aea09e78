// Geometric operations on planar 8-bit images with the arithmetic of Pillow 9.4 and torchvision
// 0.14 on PIL images: crops, and affine maps with nearest-neighbour sampling (rotate, affine,
// the shears and translations of TrivialAugment and RandAugment). Pillow walks an affine map in
// 16.16 fixed point when the image is small enough, and the sampled pixel depends on it, so
// this does the same (tests/data/augment_golden.json holds torchvision's results).
#pragma once

#include <array>
#include <vector>

#include "runner/data/image_decode.h"

namespace runner {

// The (height, width) window at (top, left), which must lie inside the image.
Image crop_image(const Image& image, int top, int left, int height, int width);

// The inverse map Pillow's Image.transform(AFFINE) takes: output pixel centre (x, y) reads the
// input at (a0 x + a1 y + a2, a3 x + a4 y + a5).
using AffineMap = std::array<double, 6>;

// torchvision's _get_inverse_affine_matrix: rotation by `angle` degrees (counter-clockwise)
// about (centre_x, centre_y), then scale, shear (degrees) and translation (pixels).
AffineMap torchvision_affine(double centre_x, double centre_y, double angle, double translate_x,
                             double translate_y, double scale, double shear_x, double shear_y);

// Image.transform(size, AFFINE, map, NEAREST, fillcolor): every output pixel from its nearest
// input pixel, `fill` (one byte per channel) where the map leaves the image.
void transform_nearest(Image& image, const AffineMap& map, const std::vector<std::uint8_t>& fill);

// torchvision's rotate on a PIL image (Image.rotate, NEAREST, expand false, about the centre):
// multiples of 90 degrees that keep the size are exact transposes, as in Pillow.
void rotate_nearest(Image& image, double angle, const std::vector<std::uint8_t>& fill);

}  // namespace runner
