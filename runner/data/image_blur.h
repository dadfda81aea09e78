// torchvision's gaussian_blur of an 8-bit image (a PIL image goes through its tensor path): a
// normalised Gaussian kernel in single precision, reflected borders, rounded half to even.
#pragma once

#include "runner/data/image_decode.h"

namespace runner {

// kernel_size odd, below both sides (the reflection needs them); sigma > 0.
void gaussian_blur(Image& image, int kernel_size, double sigma);

}  // namespace runner
