// Host augmentation: the decisions once per image, then each output pixel read from where
// augment_math::source_pixel says (zero for padding); steps that change pixel values go one
// after another through their Augmentation.
#include "runner/data/augment.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "runner/data/augmentation.h"
#include "runner/data/image_resize.h"

namespace runner {

static_assert(kMaxAugmentSteps == augment_math::kMaxSteps, "the config and the plan must agree");

namespace {

// Whether every step only moves pixels, so one augment_math plan is the whole augmentation.
bool moves_pixels_only(const std::vector<AugmentStep>& steps) {
  return std::all_of(steps.begin(), steps.end(),
                     [](const AugmentStep& step) { return step.op->pixel_move().has_value(); });
}

}  // namespace

augment_math::Plan augment_plan(const std::vector<AugmentStep>& steps, std::uint64_t seed) {
  if (steps.size() > static_cast<std::size_t>(augment_math::kMaxSteps)) {
    throw std::logic_error("more augmentation steps than resolve_experiment allows");
  }
  augment_math::Plan plan;
  plan.seed = seed;
  plan.count = static_cast<int>(steps.size());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const std::optional<augment_math::Step> step = steps[k].op->pixel_move();
    if (!step) throw std::logic_error(steps[k].kind + " is not a pixel move: no plan holds it");
    plan.steps[k] = *step;
  }
  return plan;
}

void move_pixels(const augment_math::Plan& plan, const augment_math::Choices& choices,
                 const std::uint8_t* in, std::uint8_t* out, int channels, int height, int width) {
  const std::size_t pixels = static_cast<std::size_t>(height) * width;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      int sy = y, sx = x;
      const bool inside = augment_math::source_pixel(plan, choices, height, width, sy, sx);
      const std::size_t to = static_cast<std::size_t>(y) * width + x;
      const std::size_t from = static_cast<std::size_t>(sy) * width + sx;
      for (int c = 0; c < channels; ++c) out[c * pixels + to] = inside ? in[c * pixels + from] : 0;
    }
  }
}

void augment_image(const augment_math::Plan& plan, std::int64_t epoch, std::uint64_t index,
                   const std::uint8_t* in, std::uint8_t* out, int channels, int height, int width) {
  move_pixels(plan, augment_math::choose(plan, epoch, index), in, out, channels, height, width);
}

ImageAugmenter::ImageAugmenter(const std::vector<AugmentStep>& steps, std::uint64_t seed)
    : seed_(seed) {
  if (runner::moves_pixels_only(steps)) {
    plan_ = augment_plan(steps, seed);
  } else {
    steps_ = steps;
  }
}

void ImageAugmenter::apply_decoded(std::int64_t epoch, std::uint64_t key, Image decoded,
                                   std::uint8_t* out, int channels, int height, int width) const {
  const std::size_t bytes = static_cast<std::size_t>(channels) * height * width;
  if (!steps_.empty() && steps_.front().op->takes_any_size()) {
    for (std::size_t k = 0; k < steps_.size(); ++k) {
      DrawStream draws(augment_math::draw(seed_, epoch, key, static_cast<int>(k)));
      steps_[k].op->apply(decoded, draws);
    }
    if (decoded.channels != channels || decoded.height != height || decoded.width != width) {
      throw std::logic_error("an augmentation left an image of another size");
    }
    std::memcpy(out, decoded.pixels.data(), bytes);
    return;
  }
  if (empty()) {
    resize_image_into(decoded, height, width, {out, bytes});
    return;
  }
  std::vector<std::uint8_t> resized(bytes);
  resize_image_into(decoded, height, width, resized);
  apply(epoch, key, resized.data(), out, channels, height, width);
}

void ImageAugmenter::apply(std::int64_t epoch, std::uint64_t key, const std::uint8_t* in,
                           std::uint8_t* out, int channels, int height, int width) const {
  const std::size_t bytes = static_cast<std::size_t>(channels) * height * width;
  if (steps_.empty()) {
    if (plan_.count == 0) {
      std::memcpy(out, in, bytes);
    } else {
      augment_image(plan_, epoch, key, in, out, channels, height, width);
    }
    return;
  }
  Image image{channels, height, width, std::vector<std::uint8_t>(in, in + bytes)};
  for (std::size_t k = 0; k < steps_.size(); ++k) {
    DrawStream draws(augment_math::draw(seed_, epoch, key, static_cast<int>(k)));
    steps_[k].op->apply(image, draws);
  }
  if (image.channels != channels || image.height != height || image.width != width) {
    throw std::logic_error("an augmentation left an image of another size");
  }
  std::memcpy(out, image.pixels.data(), bytes);
}

}  // namespace runner
