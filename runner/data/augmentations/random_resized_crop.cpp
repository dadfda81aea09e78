// torchvision's RandomResizedCrop(size, scale, ratio) with size the model's input: a box of a
// random share of the image's area and aspect ratio, resized to that size with Pillow's bilinear
// filter (torchvision's default on PIL images; bit for bit, image_resize.h). The image is the
// stored one (dataset.image_size), or with dataset.decode: per_epoch the file as decoded.
#include <fmt/format.h>

#include <cmath>

#include "runner/data/augmentation.h"
#include "runner/data/image_geometry.h"
#include "runner/data/image_resize.h"

namespace runner {
namespace {

class RandomResizedCrop : public Augmentation {
 public:
  RandomResizedCrop(const ImageShape& image, std::pair<double, double> scale,
                    std::pair<double, double> ratio)
      : image_(image), scale_(scale), ratio_(ratio) {}

  nlohmann::json settings() const override {
    return {{"size", {image_.height, image_.width}},
            {"scale", {scale_.first, scale_.second}},
            {"ratio", {ratio_.first, ratio_.second}}};
  }

  void apply(Image& image, DrawStream& draws) const override {
    const Box box = choose_box(image.height, image.width, draws);
    image = resize_image(crop_image(image, box.top, box.left, box.height, box.width), image_.height,
                         image_.width);
  }

  bool takes_any_size() const override { return true; }
  std::pair<int, int> output_size(std::pair<int, int>) const override {
    return {image_.height, image_.width};
  }

 private:
  struct Box {
    int top, left, height, width;
  };

  // RandomResizedCrop.get_params: ten tries at a random area and log-uniform aspect ratio, then
  // the central crop of the ratio range's nearest aspect.
  Box choose_box(int height, int width, DrawStream& draws) const {
    const double area = static_cast<double>(height) * width;
    const double log_low = std::log(ratio_.first), log_high = std::log(ratio_.second);
    for (int attempt = 0; attempt < 10; ++attempt) {
      const double target = area * draws.uniform(scale_.first, scale_.second);
      const double aspect = std::exp(draws.uniform(log_low, log_high));
      const int w = static_cast<int>(std::nearbyint(std::sqrt(target * aspect)));
      const int h = static_cast<int>(std::nearbyint(std::sqrt(target / aspect)));
      if (0 < w && w <= width && 0 < h && h <= height) {
        return {draws.below(height - h + 1), draws.below(width - w + 1), h, w};
      }
    }
    const double in_ratio = static_cast<double>(width) / height;
    int w = width, h = height;
    if (in_ratio < ratio_.first) {
      h = static_cast<int>(std::nearbyint(w / ratio_.first));
    } else if (in_ratio > ratio_.second) {
      w = static_cast<int>(std::nearbyint(h * ratio_.second));
    }
    return {(height - h) / 2, (width - w) / 2, h, w};
  }

  ImageShape image_;
  std::pair<double, double> scale_, ratio_;
};

}  // namespace

RUNNER_AUGMENTATION(random_resized_crop) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext& context) {
    if (settings.has("size")) {
      const nlohmann::json& size = settings.raw("size");
      const ImageShape& image = context.image;
      const bool same = (size.is_number_integer() && size.get<std::int64_t>() == image.height &&
                         image.height == image.width) ||
                        (size.is_array() && size.size() == 2 && size[0] == image.height &&
                         size[1] == image.width);
      if (!same) {
        settings.wrong("size", fmt::format("the image size [{}, {}]: the crop is resized back to "
                                           "the model's input (set the size with "
                                           "dataset.image_size)",
                                           image.height, image.width));
      }
    }
    const auto scale = read_positive_pair(settings, "scale", {0.08, 1.0}, 1.0,
                                          "the share of the image's area the box covers");
    const auto ratio = read_positive_pair(settings, "ratio", {3.0 / 4.0, 4.0 / 3.0}, 1e6,
                                          "the box's width / height");
    return std::shared_ptr<const Augmentation>(
        std::make_shared<RandomResizedCrop>(context.image, scale, ratio));
  };
  return kind;
}

}  // namespace runner
