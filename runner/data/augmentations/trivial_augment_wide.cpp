// torchvision's TrivialAugmentWide(num_magnitude_bins, NEAREST, fill): one of its 14 ops drawn
// uniformly, at a magnitude drawn uniformly from the op's bins, with a random sign where the op
// has one.
#include "runner/data/augmentation.h"
#include "runner/data/autoaugment_ops.h"

namespace runner {
namespace {

class TrivialAugmentWide : public Augmentation {
 public:
  TrivialAugmentWide(int bins, std::vector<std::uint8_t> fill)
      : bins_(bins), fill_(std::move(fill)) {}
  nlohmann::json settings() const override {
    return {{"num_magnitude_bins", bins_}, {"fill", fill_json(fill_)}};
  }
  void apply(Image& image, DrawStream& draws) const override {
    const auto op = static_cast<AutoAugmentOp>(draws.below(kAutoAugmentOps));
    const OpMagnitudes space =
        op_magnitudes(AugmentSpace::trivial_augment_wide, op, bins_, image.height, image.width);
    double magnitude = space.values.empty() ? 0.0 : space.values[draws.below(bins_)];
    if (space.signed_op && draws.below(2) == 1) magnitude = -magnitude;
    apply_autoaugment_op(image, op, magnitude, fill_);
  }

 private:
  int bins_;
  std::vector<std::uint8_t> fill_;
};

}  // namespace

RUNNER_AUGMENTATION(trivial_augment_wide) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext& context) {
    require_gray_or_rgb(context, "trivial_augment_wide");
    const int bins = settings.integer("num_magnitude_bins", 31);
    if (bins < 2 || bins > 1000) settings.wrong("num_magnitude_bins", "an integer from 2 to 1000");
    return std::shared_ptr<const Augmentation>(
        std::make_shared<TrivialAugmentWide>(bins, read_fill(settings, context)));
  };
  return kind;
}

}  // namespace runner
