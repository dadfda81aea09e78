// How an image decoded from a file at any size becomes the model's input size: resized to it
// (torchvision's Resize((h, w)), the default), or as torchvision's evaluation recipes do,
// Resize(side) of the shorter side (or Resize((h, w))) and then CenterCrop to the input size
// (dataset.eval_transform). The pixels are torchvision's on PIL images: Pillow's antialiased
// bilinear resize (image_resize.h), CenterCrop's rounding and zero padding.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "runner/data/dataset_spec.h"  // ImageFit
#include "runner/data/image_decode.h"

namespace runner {

// A name for what `fit` does, for cache file names ("": the default).
std::string fit_key(const ImageFit& fit);

// The size a JPEG may be decoded down to before `fit` fits it to (height, width): what its first
// resize makes at least ({side, side} for the shorter side), none without fit.jpeg_draft or when
// it is cropped first.
DraftSize draft_size(const ImageFit& fit, int height, int width);

// torchvision's Resize(side) of a PIL image: the shorter side becomes `side`, the longer
// int(side x longer / shorter). Returns (height, width).
std::pair<int, int> shorter_side_size(int height, int width, int side);

// torchvision's CenterCrop((height, width)) of a PIL image: zero padding first where the image is
// smaller ((extra) / 2 before, the rest after), then the window at round((H - h) / 2) (Python's
// round, half to even), round((W - w) / 2).
Image center_crop(const Image& image, int height, int width);

// `image` fitted to (C, height, width) into `out`: resized as `fit` says, centre-cropped when it
// says so, and resized to (height, width) if it is not that size yet.
void fit_image_into(const Image& image, const ImageFit& fit, int height, int width,
                    std::span<std::uint8_t> out);

}  // namespace runner
