// Host augmentation: the decisions once per image, then each output pixel read from where
// augment_math::source_pixel says (zero for padding).
#include "runner/data/augment.h"

#include <stdexcept>

namespace runner {

static_assert(kMaxAugmentSteps == augment_math::kMaxSteps, "the config and the plan must agree");

augment_math::Plan augment_plan(const std::vector<AugmentStep>& steps, std::uint64_t seed) {
  if (steps.size() > static_cast<std::size_t>(augment_math::kMaxSteps)) {
    throw std::logic_error("more augmentation steps than resolve_experiment allows");
  }
  augment_math::Plan plan;
  plan.seed = seed;
  plan.count = static_cast<int>(steps.size());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    switch (steps[k].kind) {
      case AugmentKind::random_crop:
        plan.steps[k].kind = augment_math::StepKind::random_crop;
        break;
      case AugmentKind::horizontal_flip:
        plan.steps[k].kind = augment_math::StepKind::horizontal_flip;
        break;
      case AugmentKind::vertical_flip:
        plan.steps[k].kind = augment_math::StepKind::vertical_flip;
        break;
    }
    plan.steps[k].padding = steps[k].padding;
    plan.steps[k].p = steps[k].p;
  }
  return plan;
}

void augment_image(const augment_math::Plan& plan, std::int64_t epoch, std::uint64_t index,
                   const std::uint8_t* in, std::uint8_t* out, int channels, int height, int width) {
  const augment_math::Choices choices = augment_math::choose(plan, epoch, index);
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

}  // namespace runner
