// resize and center_crop as training steps: torchvision's Resize(size) and CenterCrop(size) on
// PIL images (Pillow's antialiased bilinear, CenterCrop's rounding and zero padding: the pixels
// of image_fit.h, which dataset.eval_transform uses). They change the image's size, so the list
// must end at the model's input (the config checks it): [{resize: {size: 256}}, {random_crop:
// {}}] is the reference recipes' Resize(256) + RandomCrop(224) at dataset.image_size 224.
#include <fmt/format.h>

#include <algorithm>

#include "runner/data/augmentation.h"
#include "runner/data/image_fit.h"
#include "runner/data/image_resize.h"

namespace runner {
namespace {

constexpr int kLargestSide = 16384;

// `key` as one side or [height, width], each from 1 to kLargestSide; (side, 0) for one side.
std::pair<int, int> read_size(const SettingsReader& settings, const std::string& key) {
  const nlohmann::json& size = settings.raw(key);
  auto side = [](const nlohmann::json& v) {
    return v.is_number_integer() && v.get<std::int64_t>() >= 1 &&
           v.get<std::int64_t>() <= kLargestSide;
  };
  if (side(size)) return {size.get<int>(), 0};
  if (size.is_array() && size.size() == 2 && side(size[0]) && side(size[1])) {
    return {size[0].get<int>(), size[1].get<int>()};
  }
  settings.wrong(key, fmt::format("one side or [height, width], each from 1 to {}", kLargestSide));
}

// Resize(side): the shorter side becomes `side`, the aspect ratio kept; Resize([h, w]): that size.
class Resize : public Augmentation {
 public:
  explicit Resize(std::pair<int, int> size) : size_(size) {}

  nlohmann::json settings() const override {
    if (size_.second == 0) return {{"size", size_.first}};
    return {{"size", {size_.first, size_.second}}};
  }

  void apply(Image& image, DrawStream&) const override {
    if (size_.second == 0) {
      // A long thin image would become huge (side x its aspect ratio): refused, as decoding
      // refuses an image beyond its memory limit.
      const double longer = static_cast<double>(size_.first) * std::max(image.height, image.width) /
                            std::max(1, std::min(image.height, image.width));
      if (longer > kLargestSide) {
        throw UserError(fmt::format(
            "dataset.augment: resize to a shorter side of {} would make a {}x{} image {:.0f} "
            "pixels long (at most {}); give resize [height, width], or crop first",
            size_.first, image.height, image.width, longer, kLargestSide));
      }
    }
    const auto [height, width] = output_size({image.height, image.width});
    if (height != image.height || width != image.width) image = resize_image(image, height, width);
  }

  std::pair<int, int> output_size(std::pair<int, int> in) const override {
    if (size_.second > 0) return size_;
    if (in.first == 0) return {0, 0};  // of an image whose size is not known before it comes
    return shorter_side_size(in.first, in.second, size_.first);
  }

  bool takes_any_size() const override { return true; }

  DraftSize jpeg_draft() const override {
    return size_.second == 0 ? DraftSize{size_.first, size_.first}
                             : DraftSize{size_.first, size_.second};
  }

 private:
  std::pair<int, int> size_;  // (side, 0) or (height, width)
};

class CenterCrop : public Augmentation {
 public:
  CenterCrop(int height, int width) : height_(height), width_(width) {}

  nlohmann::json settings() const override { return {{"size", {height_, width_}}}; }

  void apply(Image& image, DrawStream&) const override {
    if (image.height != height_ || image.width != width_) {
      image = center_crop(image, height_, width_);
    }
  }

  std::pair<int, int> output_size(std::pair<int, int>) const override { return {height_, width_}; }

  bool takes_any_size() const override { return true; }

 private:
  int height_, width_;
};

}  // namespace

RUNNER_AUGMENTATION(resize) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext&) {
    if (!settings.has("size")) {
      settings.wrong("size",
                     "the size to resize to: one side (the shorter side) or [height, "
                     "width]");
    }
    return std::shared_ptr<const Augmentation>(
        std::make_shared<Resize>(read_size(settings, "size")));
  };
  return kind;
}

// CenterCrop(size), by default of the model's input size.
RUNNER_AUGMENTATION(center_crop) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext& context) {
    std::pair<int, int> size{context.image.height, context.image.width};
    if (settings.has("size")) {
      size = read_size(settings, "size");
      if (size.second == 0) size.second = size.first;
    }
    return std::shared_ptr<const Augmentation>(
        std::make_shared<CenterCrop>(size.first, size.second));
  };
  return kind;
}

}  // namespace runner
