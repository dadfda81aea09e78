// Colour operations on planar 8-bit images (1 channel: Pillow's "L", 3: "RGB"), with the
// arithmetic of Pillow 9.4, which torchvision's transforms call on the PIL images of the
// reference recipes: ImageEnhance (brightness, contrast, colour, sharpness), the HSV round trip
// of adjust_hue, ImageOps (posterize, solarize, autocontrast, equalize) and convert('L').
// tests/data/augment_golden.json (scripts/augment_golden.py) holds torchvision's results.
#pragma once

#include <cstdint>

#include "runner/data/image_decode.h"

namespace runner {

// Pillow's convert('L'): ITU-R 601-2 luma in 16-bit fixed point, rounded.
inline std::uint8_t pillow_luma(int r, int g, int b) {
  return static_cast<std::uint8_t>((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16);
}

// Image.blend(degenerate, image, factor), in place on `image`: degenerate + factor x (image -
// degenerate) in single precision, truncated, clipped when the factor extrapolates.
void blend_from(const Image& degenerate, Image& image, float factor);

// torchvision's adjust_brightness, adjust_contrast, adjust_saturation, adjust_sharpness.
void adjust_brightness(Image& image, float factor);
void adjust_contrast(Image& image, float factor);
void adjust_saturation(Image& image, float factor);  // 1 channel: unchanged
void adjust_sharpness(Image& image, float factor);
// torchvision's adjust_hue (factor in [-0.5, 0.5]): the hue byte of Pillow's HSV shifted by
// factor x 255 (wrapping), back to RGB. 1 channel: unchanged.
void adjust_hue(Image& image, double factor);

// rgb_to_grayscale keeping the channels: each becomes convert('L') of the pixel.
void to_grayscale(Image& image);

void posterize(Image& image, int bits);         // keep the top `bits` of each byte (1-8)
void solarize(Image& image, double threshold);  // bytes >= threshold inverted
void autocontrast(Image& image);                // each channel stretched to 0-255
void equalize(Image& image);                    // each channel's histogram equalised

}  // namespace runner
