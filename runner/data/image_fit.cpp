// Resize and centre crop, as torchvision's evaluation transforms.
#include "runner/data/image_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "runner/data/image_geometry.h"
#include "runner/data/image_resize.h"

namespace runner {

std::string fit_key(const ImageFit& fit) {
  std::string key = fit.shorter_side > 0 ? fmt::format("r{}", fit.shorter_side)
                    : fit.resize_height > 0
                        ? fmt::format("r{}x{}", fit.resize_height, fit.resize_width)
                        : std::string();
  if (fit.center_crop) key += "c";
  return fit.jpeg_draft ? key + "d" : key;
}

DraftSize draft_size(const ImageFit& fit, int height, int width) {
  if (!fit.jpeg_draft) return {};
  if (fit.shorter_side > 0) return {fit.shorter_side, fit.shorter_side};
  if (fit.resize_height > 0) return {fit.resize_height, fit.resize_width};
  if (fit.center_crop) return {};  // the crop takes the photo's own pixels
  return {height, width};
}

std::pair<int, int> shorter_side_size(int height, int width, int side) {
  if (height <= width) {
    return {side, static_cast<int>(static_cast<double>(side) * width / height)};
  }
  return {static_cast<int>(static_cast<double>(side) * height / width), side};
}

Image center_crop(const Image& image, int height, int width) {
  const Image* source = &image;
  Image padded;
  if (height > image.height || width > image.width) {
    // torchvision pads (crop - size) // 2 before and the rest after, with zeros.
    const int pad_top = std::max(0, (height - image.height) / 2);
    const int pad_left = std::max(0, (width - image.width) / 2);
    const int new_height = std::max(height, image.height), new_width = std::max(width, image.width);
    padded = {image.channels, new_height, new_width,
              std::vector<std::uint8_t>(
                  static_cast<std::size_t>(image.channels) * new_height * new_width, 0)};
    for (int c = 0; c < image.channels; ++c) {
      for (int y = 0; y < image.height; ++y) {
        std::copy_n(
            image.pixels.data() + (static_cast<std::size_t>(c) * image.height + y) * image.width,
            image.width,
            padded.pixels.data() +
                (static_cast<std::size_t>(c) * new_height + y + pad_top) * new_width + pad_left);
      }
    }
    source = &padded;
  }
  // Python's round: half to even, as nearbyint in the default rounding mode.
  const int top = static_cast<int>(std::nearbyint((source->height - height) / 2.0));
  const int left = static_cast<int>(std::nearbyint((source->width - width) / 2.0));
  return crop_image(*source, top, left, height, width);
}

void fit_image_into(const Image& image, const ImageFit& fit, int height, int width,
                    std::span<std::uint8_t> out) {
  if (fit.is_default()) {
    resize_image_into(image, height, width, out);
    return;
  }
  Image fitted;
  if (fit.shorter_side > 0) {
    const auto [h, w] = shorter_side_size(image.height, image.width, fit.shorter_side);
    fitted = resize_image(image, h, w);
  } else if (fit.resize_height > 0) {
    fitted = resize_image(image, fit.resize_height, fit.resize_width);
  } else {
    fitted = image;
  }
  if (fit.center_crop) fitted = center_crop(fitted, height, width);
  resize_image_into(fitted, height, width, out);  // a copy when it is that size already
}

}  // namespace runner
