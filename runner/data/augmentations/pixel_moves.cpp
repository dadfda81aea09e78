// random_crop, horizontal_flip, vertical_flip: the steps that only move pixels. They are
// augment_math steps, so the GPU's gather kernel runs them too; beside a step that changes
// pixel values they run here, with the same draw as the plan's.
#include <fmt/format.h>

#include <algorithm>

#include "runner/data/augment.h"
#include "runner/data/augmentation.h"

namespace runner {
namespace {

class PixelMove : public Augmentation {
 public:
  PixelMove(augment_math::Step step, nlohmann::json settings)
      : step_(step), settings_(std::move(settings)) {}
  nlohmann::json settings() const override { return settings_; }
  std::optional<augment_math::Step> pixel_move() const override { return step_; }
  void apply(Image& image, DrawStream& draws) const override {
    augment_math::Plan plan;
    plan.count = 1;
    plan.steps[0] = step_;
    augment_math::Choices choices;
    choices.count = 1;
    choices.steps[0] = augment_math::choose_step(step_, draws.bits());
    const std::vector<std::uint8_t> in = image.pixels;
    move_pixels(plan, choices, in.data(), image.pixels.data(), image.channels, image.height,
                image.width);
  }

 private:
  augment_math::Step step_;
  nlohmann::json settings_;
};

// torchvision's RandomCrop(size, padding, pad_if_needed=True) to the model's input size. An
// image of that size is the plan's pixel move (the GPU's gather makes the same); a larger one,
// after a resize, is cropped here, with the same draw: the window's top from the high 32 bits,
// its left from the low, over every place it fits in the padded image.
class RandomCrop : public PixelMove {
 public:
  RandomCrop(augment_math::Step step, const ImageShape& size)
      : PixelMove(step,
                  nlohmann::json{{"size", {size.height, size.width}}, {"padding", step.padding}}),
        height_(size.height),
        width_(size.width) {}

  std::pair<int, int> output_size(std::pair<int, int>) const override { return {height_, width_}; }

  void apply(Image& image, DrawStream& draws) const override {
    if (image.height == height_ && image.width == width_) return PixelMove::apply(image, draws);
    const std::uint64_t bits = draws.bits();
    const int padding = pixel_move()->padding;
    // pad_if_needed: a side still shorter than the crop after the padding gets the difference
    // on both ends, as torchvision pads it.
    const int pad_y = padding + std::max(0, height_ - (image.height + 2 * padding));
    const int pad_x = padding + std::max(0, width_ - (image.width + 2 * padding));
    const int top = augment_math::below(static_cast<std::uint32_t>(bits >> 32),
                                        image.height + 2 * pad_y - height_ + 1) -
                    pad_y;
    const int left = augment_math::below(static_cast<std::uint32_t>(bits),
                                         image.width + 2 * pad_x - width_ + 1) -
                     pad_x;
    Image out{
        image.channels, height_, width_,
        std::vector<std::uint8_t>(static_cast<std::size_t>(image.channels) * height_ * width_)};
    const std::size_t in_plane = static_cast<std::size_t>(image.height) * image.width;
    const std::size_t out_plane = static_cast<std::size_t>(height_) * width_;
    // The window's columns inside the image; the rest stays zero (the padding).
    const int x0 = std::max(0, -left), x1 = std::min(width_, image.width - left);
    for (int c = 0; c < image.channels && x0 < x1; ++c) {
      for (int y = 0; y < height_; ++y) {
        const int sy = top + y;
        if (sy < 0 || sy >= image.height) continue;
        const std::uint8_t* from =
            image.pixels.data() + c * in_plane + static_cast<std::size_t>(sy) * image.width;
        std::copy(from + left + x0, from + left + x1,
                  out.pixels.data() + c * out_plane + static_cast<std::size_t>(y) * width_ + x0);
      }
    }
    image = std::move(out);
  }

 private:
  int height_, width_;
};

std::shared_ptr<const Augmentation> read_flip(const SettingsReader& settings,
                                              augment_math::StepKind kind) {
  augment_math::Step step{kind};
  step.p = read_probability(settings, "p", 0.5);
  return std::make_shared<PixelMove>(step, nlohmann::json{{"p", step.p}});
}

}  // namespace

// torchvision's RandomCrop(size, padding) with size the model's input (the graph is built for
// it): of the image itself with padding, or of a larger one after a resize.
RUNNER_AUGMENTATION(random_crop) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& crop, const AugmentContext& context) {
    const ImageShape& image = context.image;
    augment_math::Step step{augment_math::StepKind::random_crop};
    step.padding = crop.integer("padding", 0);
    const int smaller_side = std::min(image.height, image.width);
    if (step.padding < 0 || step.padding > smaller_side) {
      crop.wrong("padding",
                 fmt::format("an integer from 0 to {} (the image's smaller side)", smaller_side));
    }
    if (crop.has("size")) {
      const nlohmann::json& size = crop.raw("size");
      const bool square = size.is_number_integer();
      const bool pair = size.is_array() && size.size() == 2 && size[0].is_number_integer() &&
                        size[1].is_number_integer();
      const std::string expected = fmt::format(
          "the image size {}x{} ({} or [{}, {}]); a crop to another size would change the "
          "model's input",
          image.height, image.width, image.height, image.height, image.width);
      if (!square && !pair) crop.wrong("size", expected);
      const std::int64_t h = square ? size.get<std::int64_t>() : size[0].get<std::int64_t>();
      const std::int64_t w = square ? h : size[1].get<std::int64_t>();
      if (h != image.height || w != image.width) {
        throw_user_error(crop.where("size"),
                         fmt::format("found {}, expected {}", size.dump(), expected),
                         "leave size out: it defaults to the image size");
      }
    }
    return std::shared_ptr<const Augmentation>(std::make_shared<RandomCrop>(step, image));
  };
  return kind;
}

// torchvision's RandomHorizontalFlip(p).
RUNNER_AUGMENTATION(horizontal_flip) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext&) {
    return read_flip(settings, augment_math::StepKind::horizontal_flip);
  };
  return kind;
}

// torchvision's RandomVerticalFlip(p).
RUNNER_AUGMENTATION(vertical_flip) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext&) {
    return read_flip(settings, augment_math::StepKind::vertical_flip);
  };
  return kind;
}

}  // namespace runner
