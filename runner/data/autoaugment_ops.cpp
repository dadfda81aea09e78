// autoaugment._apply_op and _augmentation_space of torchvision 0.14, on the image operations of
// image_color.h and image_geometry.h (each checked against torchvision on its own).
#include "runner/data/autoaugment_ops.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "runner/data/image_color.h"
#include "runner/data/image_geometry.h"

namespace runner {
namespace {

// torch.linspace in float32: the first half counted up from start, the second down from end,
// each value one fused multiply-add (PyTorch's vectorised kernel), so rounded once.
std::vector<double> linspace(float start, float end, int steps) {
  std::vector<double> out(steps);
  if (steps == 1) {
    out[0] = start;
    return out;
  }
  const float step = (end - start) / static_cast<float>(steps - 1);
  for (int i = 0; i < steps; ++i) {
    out[i] = i < steps / 2 ? std::fma(step, static_cast<float>(i), start)
                           : std::fma(-step, static_cast<float>(steps - i - 1), end);
  }
  return out;
}

// 8 - (arange(bins) / ((bins - 1) / levels)).round(): the bits posterize keeps.
std::vector<double> posterize_bits(int bins, double levels) {
  std::vector<double> out(bins);
  const auto divisor = static_cast<float>((bins - 1) / levels);
  for (int i = 0; i < bins; ++i) out[i] = 8 - std::nearbyint(static_cast<float>(i) / divisor);
  return out;
}

double degrees(double radians) {
  return radians * (180.0 / std::numbers::pi);
}

}  // namespace

std::string autoaugment_op_name(AutoAugmentOp op) {
  static const char* names[kAutoAugmentOps] = {
      "Identity", "ShearX",   "ShearY",    "TranslateX", "TranslateY", "Rotate",       "Brightness",
      "Color",    "Contrast", "Sharpness", "Posterize",  "Solarize",   "AutoContrast", "Equalize"};
  return names[static_cast<int>(op)];
}

void apply_autoaugment_op(Image& image, AutoAugmentOp op, double magnitude,
                          const std::vector<std::uint8_t>& fill) {
  const double centre_x = image.width * 0.5, centre_y = image.height * 0.5;
  const auto factor = static_cast<float>(1.0 + magnitude);
  switch (op) {
    case AutoAugmentOp::identity:
      return;
    case AutoAugmentOp::shear_x:  // about the top-left corner, as torchvision's center=[0, 0]
      return transform_nearest(
          image, torchvision_affine(0, 0, 0, 0, 0, 1, degrees(std::atan(magnitude)), 0), fill);
    case AutoAugmentOp::shear_y:
      return transform_nearest(
          image, torchvision_affine(0, 0, 0, 0, 0, 1, 0, degrees(std::atan(magnitude))), fill);
    case AutoAugmentOp::translate_x:
      return transform_nearest(
          image, torchvision_affine(centre_x, centre_y, 0, std::trunc(magnitude), 0, 1, 0, 0),
          fill);
    case AutoAugmentOp::translate_y:
      return transform_nearest(
          image, torchvision_affine(centre_x, centre_y, 0, 0, std::trunc(magnitude), 1, 0, 0),
          fill);
    case AutoAugmentOp::rotate:
      return rotate_nearest(image, magnitude, fill);
    case AutoAugmentOp::brightness:
      return adjust_brightness(image, factor);
    case AutoAugmentOp::color:
      return adjust_saturation(image, factor);
    case AutoAugmentOp::contrast:
      return adjust_contrast(image, factor);
    case AutoAugmentOp::sharpness:
      return adjust_sharpness(image, factor);
    case AutoAugmentOp::posterize:
      return posterize(image, static_cast<int>(magnitude));
    case AutoAugmentOp::solarize:
      return solarize(image, magnitude);
    case AutoAugmentOp::autocontrast:
      return autocontrast(image);
    case AutoAugmentOp::equalize:
      return equalize(image);
  }
  throw std::logic_error("unknown autoaugment op");
}

OpMagnitudes op_magnitudes(AugmentSpace space, AutoAugmentOp op, int bins, int height, int width) {
  const bool wide = space == AugmentSpace::trivial_augment_wide;
  const float shear = wide ? 0.99f : 0.3f, enhance = wide ? 0.99f : 0.9f;
  switch (op) {
    case AutoAugmentOp::shear_x:
    case AutoAugmentOp::shear_y:
      return {linspace(0, shear, bins), true};
    case AutoAugmentOp::translate_x:
      return {linspace(0, wide ? 32.0f : static_cast<float>(150.0 / 331.0 * width), bins), true};
    case AutoAugmentOp::translate_y:
      return {linspace(0, wide ? 32.0f : static_cast<float>(150.0 / 331.0 * height), bins), true};
    case AutoAugmentOp::rotate:
      return {linspace(0, wide ? 135.0f : 30.0f, bins), true};
    case AutoAugmentOp::brightness:
    case AutoAugmentOp::color:
    case AutoAugmentOp::contrast:
    case AutoAugmentOp::sharpness:
      return {linspace(0, enhance, bins), true};
    case AutoAugmentOp::posterize:
      return {posterize_bits(bins, wide ? 6.0 : 4.0), false};
    case AutoAugmentOp::solarize:
      return {linspace(255.0f, 0.0f, bins), false};
    default:
      return {{}, false};
  }
}

}  // namespace runner
