// The operations of torchvision's TrivialAugmentWide and RandAugment (autoaugment._apply_op, on
// PIL images, nearest-neighbour sampling) and their magnitude spaces, shared by the two kinds.
#pragma once

#include <string>
#include <vector>

#include "runner/data/image_decode.h"

namespace runner {

// In torchvision's order (the index a uniform draw picks).
enum class AutoAugmentOp {
  identity,
  shear_x,
  shear_y,
  translate_x,
  translate_y,
  rotate,
  brightness,
  color,
  contrast,
  sharpness,
  posterize,
  solarize,
  autocontrast,
  equalize
};
inline constexpr int kAutoAugmentOps = 14;

// torchvision's name of the op ("ShearX", ...).
std::string autoaugment_op_name(AutoAugmentOp op);

// The op at `magnitude` (already signed), `fill` where a geometric op leaves the frame.
void apply_autoaugment_op(Image& image, AutoAugmentOp op, double magnitude,
                          const std::vector<std::uint8_t>& fill);

enum class AugmentSpace { trivial_augment_wide, rand_augment };

// An op's magnitudes over `bins` bins, as torchvision builds them (float32 linspace and
// rounding); empty for ops that take none. `signed_op`: a random sign applies.
struct OpMagnitudes {
  std::vector<double> values;
  bool signed_op = false;
};
OpMagnitudes op_magnitudes(AugmentSpace space, AutoAugmentOp op, int bins, int height, int width);

}  // namespace runner
